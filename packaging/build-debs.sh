#!/usr/bin/env bash
# build-debs.sh OUTDIR LIB HEADER [CLI PHONEAUTHD]
# Debian packages, with dpkg-deb, versioned from the header's PHONEAUTH_VERSION:
#   libphoneauth1      the library (stripped), Depends computed from what it links (dpkg-shlibdeps)
#   libphoneauth-dev   the header, phoneauth.pc and the libphoneauth.so link
#   phoneauth          the `phoneauth` command and `phoneauthd` with a systemd unit (only when CLI
#                      and PHONEAUTHD are given: release builds, `make build server`)
set -euo pipefail
OUTDIR=${1:?usage: build-debs.sh OUTDIR LIB HEADER [CLI PHONEAUTHD]}
LIB=$(readlink -f "${2:?}")
HEADER=$(readlink -f "${3:?}")
CLI=${4:-}
DAEMON=${5:-}
HERE=$(cd "$(dirname "$0")" && pwd)
VERSION=$(sed -n 's/^#define PHONEAUTH_VERSION "\(.*\)"/\1/p' "$HEADER")
[ -n "$VERSION" ] || { echo "build-debs.sh: no PHONEAUTH_VERSION in $HEADER" >&2; exit 1; }
ARCH=$(dpkg --print-architecture)
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
MAINTAINER="PhoneAuth developers <phoneauth@localhost>"
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -f "$OUTDIR"/*_"${VERSION}"_"${ARCH}".deb  # this version's packages are all made again
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/phoneauth-debs.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

# What the given ELF files need, as a Depends value (dpkg-shlibdeps wants a debian/ folder).
depends_of() {
    mkdir -p "$STAGE/shlibs/debian"
    printf 'Source: phoneauth\n\nPackage: x\nArchitecture: any\n' > "$STAGE/shlibs/debian/control"
    (cd "$STAGE/shlibs" && dpkg-shlibdeps -O -e"$@" 2>/dev/null) | sed -n 's/^shlibs:Depends=//p'
}

control() { # control DIR PACKAGE SECTION DEPENDS DESCRIPTION...
    local dir=$1 package=$2 section=$3 depends=$4; shift 4
    mkdir -p "$dir/DEBIAN"
    {
        echo "Package: $package"
        echo "Version: $VERSION"
        echo "Architecture: $ARCH"
        echo "Maintainer: $MAINTAINER"
        echo "Section: $section"
        echo "Priority: optional"
        [ -n "$depends" ] && echo "Depends: $depends"
        echo "Installed-Size: $(du -sk --exclude=DEBIAN "$dir" | cut -f1)"
        echo "Homepage: https://github.com/phoneauth/phoneauth"
        printf 'Description: %s\n' "$1"
        shift
        for line in "$@"; do printf ' %s\n' "$line"; done
    } > "$dir/DEBIAN/control"
}

build() { dpkg-deb --root-owner-group -Zxz --build "$1" "$OUTDIR/$2_${VERSION}_${ARCH}.deb" >/dev/null; echo "$OUTDIR/$2_${VERSION}_${ARCH}.deb"; }

# ---- libphoneauth1 --------------------------------------------------------------------------------
P=$STAGE/libphoneauth1
install -d "$P/usr/lib/$MULTIARCH" "$P/usr/share/doc/libphoneauth1"
strip --strip-unneeded -o "$P/usr/lib/$MULTIARCH/libphoneauth.so.1" "$LIB"
chmod 0644 "$P/usr/lib/$MULTIARCH/libphoneauth.so.1"
echo "libphoneauth $VERSION: see https://github.com/phoneauth/phoneauth" > "$P/usr/share/doc/libphoneauth1/README"
control "$P" libphoneauth1 libs "$(depends_of "$P/usr/lib/$MULTIARCH/libphoneauth.so.1")" \
    "self-hosted phone-number sign-in engine (library)" \
    "Phone-number sign-in as Firebase does it (SMS codes, second factors, test numbers, app" \
    "verification), as a C library over SQLite or PostgreSQL."
echo "libphoneauth 1 libphoneauth1 (>= $VERSION)" > "$P/DEBIAN/shlibs"
echo "activate-noawait ldconfig" > "$P/DEBIAN/triggers"
build "$P" libphoneauth1

# ---- libphoneauth-dev ----------------------------------------------------------------------------
P=$STAGE/libphoneauth-dev
install -d "$P/usr/include" "$P/usr/lib/$MULTIARCH/pkgconfig" "$P/usr/share/doc/libphoneauth-dev"
install -m 0644 "$HEADER" "$P/usr/include/phoneauth.h"
ln -s libphoneauth.so.1 "$P/usr/lib/$MULTIARCH/libphoneauth.so"
sed -e "s|@PREFIX@|/usr|g" -e "s|^libdir=.*|libdir=\${prefix}/lib/$MULTIARCH|" \
    -e "s|^Version:.*|Version: $VERSION|" "$HERE/../phoneauth.pc.in" > "$P/usr/lib/$MULTIARCH/pkgconfig/phoneauth.pc"
echo "The C API: /usr/include/phoneauth.h; docs/API.md of the source." > "$P/usr/share/doc/libphoneauth-dev/README"
control "$P" libphoneauth-dev libdevel "libphoneauth1 (= $VERSION)" \
    "self-hosted phone-number sign-in engine (development files)" \
    "The header, the pkg-config file and the link to build against libphoneauth."
build "$P" libphoneauth-dev

# ---- phoneauth (the command and the server) -------------------------------------------------------
if [ -n "$CLI" ] && [ -n "$DAEMON" ]; then
    P=$STAGE/phoneauth
    install -d "$P/usr/bin" "$P/lib/systemd/system" "$P/etc/phoneauth" "$P/usr/share/doc/phoneauth" "$P/DEBIAN"
    strip --strip-unneeded -o "$P/usr/bin/phoneauth" "$CLI"
    strip --strip-unneeded -o "$P/usr/bin/phoneauthd" "$DAEMON"
    chmod 0755 "$P/usr/bin/phoneauth" "$P/usr/bin/phoneauthd"
    install -m 0644 "$HERE/phoneauthd.service" "$P/lib/systemd/system/phoneauthd.service"
    echo "phoneauthd reads /etc/phoneauth/phoneauthd.json (docs/SERVER.md of the source)." > "$P/usr/share/doc/phoneauth/README"
    install -m 0755 "$HERE/phoneauth.postinst" "$P/DEBIAN/postinst"
    control "$P" phoneauth admin "$(depends_of "$P/usr/bin/phoneauth" "$P/usr/bin/phoneauthd")" \
        "self-hosted phone-number sign-in engine (command and HTTP server)" \
        "phoneauth, the administration command, and phoneauthd, the HTTP server that speaks" \
        "Firebase's Identity Toolkit dialect, with a systemd unit."
    build "$P" phoneauth
fi
