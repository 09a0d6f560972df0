#!/usr/bin/env bash
# test-wheel.sh WHEEL
# Installs WHEEL as a new user would and signs in with it, inside a mount namespace where the
# Swift toolchain, this repository's build folders and the system's copies of the libraries the
# wheel vendors (jansson, libphonenumber, libpq, libcurl, SQLite) are hidden: a fresh virtualenv,
# `pip install WHEEL` (nothing from the network), then a sign-in with a test number whose ID token
# is checked against the engine's own key. Needs root (unshare).
set -euo pipefail
WHEEL=$(readlink -f "${1:?usage: test-wheel.sh WHEEL}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/phoneauth-wheel-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp "$WHEEL" "$WORK/"

cat > "$WORK/inside.sh" <<INSIDE
set -euo pipefail
. "$ROOT/packaging/hide-build.sh" "$ROOT" "$ROOT/bindings/python"
for name in libjansson.so.4 libphonenumber.so.8 libpq.so.5 libcurl.so.4 libsqlite3.so.0 libfido2.so.1; do
    for file in \$(ldconfig -p | awk -v n="\$name" '\$1 == n {print \$NF}'); do
        mount --bind /dev/null "\$(readlink -f "\$file")"
    done
done
unset PHONEAUTH_LIBRARY PYTHONPATH
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q --no-index "$WORK/$(basename "$WHEEL")"
cd "$WORK"
"$WORK/venv/bin/python" - <<'PY'
import os, tempfile
import phoneauth
from phoneauth import _ffi
site = os.path.dirname(phoneauth.__file__)
assert _ffi.lib._name.startswith(site), f"library loaded from {_ffi.lib._name}, not from the wheel"
with tempfile.TemporaryDirectory() as d:
    with phoneauth.Engine({"database": os.path.join(d, "auth.db"),
                           "testPhoneNumbers": {"+16505550101": "123456"}}) as engine:
        started = engine.verify_phone_number("+16505550101")
        credential = engine.credential(started["verificationId"], "123456")["credential"]
        signed_in = engine.sign_in_with_credential(credential)
        claims = engine.verify_id_token(signed_in["idToken"])["claims"]
        assert claims["phone_number"] == "+16505550101", claims
        assert signed_in["additionalUserInfo"]["isNewUser"] is True
print("ok: wheel installed in a fresh virtualenv and signed in, with the toolchain, the build and "
      "the system's jansson, libphonenumber, libpq, libcurl, SQLite and libfido2 hidden")
PY
INSIDE
unshare -m bash "$WORK/inside.sh"
