#!/usr/bin/env bash
# test-debs.sh DEBDIR
# Installs libphoneauth1 and libphoneauth-dev from DEBDIR with `dpkg -i` into a scratch root (its
# own dpkg database; the dependencies are the host's, so they are not checked there), then, in a
# mount namespace where the Swift toolchain and this repository's build folders are hidden,
# builds bindings/c/examples/signin.c with pkg-config against that root and runs it. With the
# `phoneauth` package in DEBDIR too: installs it, runs both commands, and checks the systemd
# unit. Needs root (unshare).
set -euo pipefail
DEBDIR=$(cd "${1:?usage: test-debs.sh DEBDIR}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/phoneauth-deb-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
SCRATCH=$WORK/root
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
mkdir -p "$SCRATCH/var/lib/dpkg/info" "$SCRATCH/var/lib/dpkg/updates"
touch "$SCRATCH/var/lib/dpkg/status"
dpkg_root() { dpkg --root="$SCRATCH" --force-depends --force-not-root --no-triggers "$@" >/dev/null 2>&1; }
# The scratch root has no packages: the dependencies are checked against this machine instead.
PROVIDED=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Provides}\n' 2>/dev/null | awk '/^ii/' | tr ',' ' ')
check_depends() {
    local deb=$1 missing=""
    for package in $(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/ //g'); do
        case "$package" in libphoneauth*) continue ;; esac
        # Installed, or provided by an installed package (libphonenumber8 provides its ABI's name).
        grep -qw -- "$package" <<<"$PROVIDED" || missing="$missing $package"
    done
    [ -z "$missing" ] || { echo "FAIL: $(basename "$deb") depends on packages not installed here:$missing"; exit 1; }
}
for deb in "$DEBDIR"/*.deb; do check_depends "$deb"; done
echo "ok: every Depends of $(cd "$DEBDIR" && echo *.deb) is a package installed on this machine"
dpkg_root -i "$DEBDIR"/libphoneauth1_*.deb "$DEBDIR"/libphoneauth-dev_*.deb
# Captured before grep: with pipefail, `grep -q` leaving early would fail the pipeline by SIGPIPE.
status=$(dpkg --root="$SCRATCH" -s libphoneauth1 libphoneauth-dev)
[ "$(grep -c "Status: install ok installed" <<<"$status")" = 2 ] || { echo "FAIL: dpkg -s: $status"; exit 1; }
echo "ok: dpkg -i libphoneauth1 libphoneauth-dev into $SCRATCH"
cp "$ROOT/bindings/c/examples/signin.c" "$WORK/"

cat > "$WORK/inside.sh" <<INSIDE
set -euo pipefail
. "$ROOT/packaging/hide-build.sh" "$ROOT"
cd "$WORK"
export PKG_CONFIG_SYSROOT_DIR="$SCRATCH" PKG_CONFIG_LIBDIR="$SCRATCH/usr/lib/$MULTIARCH/pkgconfig"
flags=\$(pkg-config --cflags --libs phoneauth)
case "\$flags" in *"$SCRATCH/usr/include"*"$SCRATCH/usr/lib/$MULTIARCH"*|*"$SCRATCH/usr/lib/$MULTIARCH"*"$SCRATCH/usr/include"*) ;;
    *) echo "FAIL: pkg-config gave '\$flags'"; exit 1 ;; esac
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror signin.c -o signin \$flags \$(pkg-config --cflags --libs jansson) -lpthread
LD_LIBRARY_PATH="$SCRATCH/usr/lib/$MULTIARCH" ./signin "$WORK/signin.db" > signin.out
# ldd's output is captured first: piped into \`grep -q\`, which stops reading at the first match,
# ldd can die of SIGPIPE and pipefail turns a match into a failure (seen in CI).
linked=\$(LD_LIBRARY_PATH="$SCRATCH/usr/lib/$MULTIARCH" ldd ./signin)
grep -q "$SCRATCH/usr/lib/$MULTIARCH/libphoneauth.so.1" <<<"\$linked" || { echo "FAIL: not the packaged library: \$linked"; exit 1; }
echo "ok: signin.c built with pkg-config against the packages and ran (\$(wc -l < signin.out) lines)"
INSIDE
LD_LIBRARY_PATH= unshare -m bash "$WORK/inside.sh"

if ls "$DEBDIR"/phoneauth_*.deb >/dev/null 2>&1; then
    # Unpacked, not configured: its postinst (which adds the service's user) would run chrooted
    # in a root that has no shell; it is checked for syntax instead.
    dpkg_root --unpack "$DEBDIR"/phoneauth_*.deb
    sh -n "$SCRATCH/var/lib/dpkg/info/phoneauth.postinst"
    grep -q "users" <<<"$("$SCRATCH/usr/bin/phoneauth" --help)" || { echo "FAIL: phoneauth --help"; exit 1; }
    grep -q "Identity Toolkit" <<<"$("$SCRATCH/usr/bin/phoneauthd" --help)" || { echo "FAIL: phoneauthd --help"; exit 1; }
    if command -v systemd-analyze >/dev/null; then
        # Only the unit's own syntax: the scratch root has no users or targets to resolve.
        problems=$(systemd-analyze verify "$SCRATCH/lib/systemd/system/phoneauthd.service" 2>&1 \
                   | grep -iv "not found\|No such file\|user\|group\|executable\|ExecStart\|Failed to\|network-online\|postgresql" || true)
        [ -z "$problems" ] || { echo "FAIL: systemd-analyze verify phoneauthd.service: $problems"; exit 1; }
    fi
    echo "ok: phoneauth and phoneauthd installed from the phoneauth package and started"
fi
