#!/usr/bin/env bash
# check-portable.sh LIBDIR
# Proves that LIBDIR/libphoneauth.so.1 loads and works without the Swift toolchain:
#   1. readelf -d: SONAME libphoneauth.so.1; no RPATH/RUNPATH into the toolchain; no NEEDED Swift
#      runtime library (libswift*, Foundation, dispatch, BlocksRuntime).
#   2. nm -D --defined-only: only phoneauth_* symbols (and the version node), and every function
#      of include/phoneauth.h is among them.
#   3. ldd: nothing resolves into the toolchain.
#   4. A small C program (portable_check.c) opens an engine and signs in with a test number inside
#      a mount namespace where a tmpfs hides the toolchain (/opt/swift). Needs root (unshare).
# Prints what it checked; exits non-zero on the first failure.
set -euo pipefail

LIBDIR=${1:?usage: check-portable.sh LIBDIR}
LIBDIR=$(cd "$LIBDIR" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
HEADER=${PHONEAUTH_HEADER:-$HERE/../../include/phoneauth.h}
LIB=$LIBDIR/libphoneauth.so.1
# Where the toolchain lives: /opt/swift, and wherever `swift` resolves to if elsewhere.
TOOLCHAIN=${SWIFT_TOOLCHAIN:-/opt/swift}
if command -v swift >/dev/null 2>&1; then
    real=$(readlink -f "$(command -v swift)")          # .../usr/bin/swift-driver
    found=$(dirname "$(dirname "$(dirname "$real")")")  # the folder holding usr/
    [ "$found" != "$TOOLCHAIN" ] && [ "$found" != / ] && TOOLCHAIN="$TOOLCHAIN $found"
fi

fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok:   $*"; }

[ -f "$LIB" ] || fail "$LIB does not exist"
echo "checking $LIB ($(stat -c %s "$LIB") bytes); toolchain: $TOOLCHAIN"

# ---- 1. dynamic section -------------------------------------------------------------------------
dyn=$(readelf -d "$LIB")
soname=$(sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p' <<<"$dyn")
[ "$soname" = libphoneauth.so.1 ] || fail "SONAME is '${soname}', want libphoneauth.so.1"
ok "SONAME $soname"

paths=$(sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\1 \2/p' <<<"$dyn")
if [ -n "$paths" ]; then
    echo "      RPATH/RUNPATH: $paths"
    for t in $TOOLCHAIN; do
        grep -qF "$t" <<<"$paths" && fail "RPATH/RUNPATH points into the toolchain: $paths"
    done
    grep -qi swift <<<"$paths" && fail "RPATH/RUNPATH points into a Swift folder: $paths"
fi
ok "no RPATH/RUNPATH into the toolchain${paths:+ (has: $paths)}"

needed=$(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' <<<"$dyn")
bad=$(grep -Ei '^lib(swift|_?foundation|dispatch|blocksruntime|xctest|_?testing)' <<<"$needed" || true)
[ -z "$bad" ] || fail "NEEDED Swift runtime libraries: $(echo $bad)"
ok "NEEDED: $(echo $needed)"

# ---- 2. exported symbols ------------------------------------------------------------------------
all_syms=$(nm -D --defined-only "$LIB")
# Lines are "<value> <type> <name>". A lower-case type (d, t, b, r) is a LOCAL entry of .dynsym:
# the version script's "local: *" leaves some there, but the dynamic linker never binds to them,
# so they are not exported. Exported are the global ones (upper case) and weak/unique (v w u i).
syms=$(awk '$(NF-1) ~ /^[A-Zuvwi]$/' <<<"$all_syms")
locals=$(awk '$(NF-1) ~ /^[a-z]$/ && $(NF-1) !~ /^[uvwi]$/' <<<"$all_syms" | grep -c . || true)
# The version node (e.g. PHONEAUTH_1) is an absolute (A) symbol.
others=$(awk '{name=$NF; type=$(NF-1)} name !~ /^phoneauth_/ && !(type == "A" && name ~ /^PHONEAUTH_[0-9A-Za-z_.]*$/) {print type, name}' <<<"$syms")
[ -z "$others" ] || fail "exports other symbols than phoneauth_*: $(echo "$others" | head -20 | tr '\n' ' ')"
exported=$(awk '$NF ~ /^phoneauth_/ {sub(/@.*/, "", $NF); print $NF}' <<<"$syms" | sort -u)
ok "exports only phoneauth_* ($(wc -l <<<"$exported") symbols$(awk '$(NF-1) == "A" {printf ", version node %s", $NF}' <<<"$syms"); $locals local, unexported .dynsym entries)"

if [ -f "$HEADER" ]; then
    declared=$(grep -oE '\bphoneauth_[a-z0-9_]+[[:space:]]*\(' "$HEADER" | tr -d ' (' | sort -u)
    missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
    [ -z "$missing" ] || fail "declared in phoneauth.h but not exported: $(echo $missing)"
    ok "every function of phoneauth.h is exported ($(wc -l <<<"$declared"))"
fi

# ---- 3. ldd -------------------------------------------------------------------------------------
deps=$(env -u LD_LIBRARY_PATH ldd "$LIB")
grep -q 'not found' <<<"$deps" && fail "unresolved dependencies: $(grep 'not found' <<<"$deps")"
for t in $TOOLCHAIN; do
    grep -qF "$t" <<<"$deps" && fail "ldd resolves into the toolchain: $(grep -F "$t" <<<"$deps")"
done
ok "ldd resolves everything outside the toolchain"

# ---- 4. run without the toolchain ---------------------------------------------------------------
work=$(mktemp -d /tmp/phoneauth-portable-XXXXXX)
trap 'rm -rf "$work"' EXIT
gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$(dirname "$HEADER")" "$HERE/portable_check.c" \
    -o "$work/portable_check" "$LIB" -ljansson -Wl,-rpath,"$LIBDIR" || fail "cannot compile portable_check.c"
ok "compiled portable_check.c"

[ "$(id -u)" = 0 ] || fail "step 4 needs root (unshare --mount)"
hide=""
for t in $TOOLCHAIN; do [ -d "$t" ] && hide="$hide $t"; done
echo "      hiding:${hide:- (nothing: no toolchain folder exists)}"
# Inside the namespace: tmpfs over each toolchain folder, prove it is empty and swift is gone,
# then run the program with a clean environment.
unshare --mount --propagation private env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    HIDE="$hide" WORK="$work" LIB="$LIB" bash -euo pipefail -c '
    for t in $HIDE; do
        mount -t tmpfs -o size=1m,mode=0755 phoneauth-hide "$t"
        [ -z "$(ls -A "$t")" ] || { echo "FAIL: $t still has content"; exit 1; }
    done
    if command -v swift >/dev/null 2>&1; then echo "FAIL: swift still reachable: $(command -v swift)"; exit 1; fi
    linked=$(ldd "$LIB")  # not piped into grep -q: pipefail would hide a match behind SIGPIPE
    if grep -q "not found" <<<"$linked"; then echo "FAIL: without the toolchain: $linked"; exit 1; fi
    echo "ok:   toolchain hidden (swift not on PATH, ldd complete)"
    cd "$WORK"
    "$WORK/portable_check" "$WORK/portable.db"
' || fail "the library does not work without the toolchain"
ok "libphoneauth works with the toolchain hidden"
echo "check-portable: all checks passed"
