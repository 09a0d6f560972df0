# Sourced inside `unshare -m` by the install tests: hides the Swift toolchain (/opt/swift) and the
# repository's build folders, plus any other folders given, behind empty tmpfs mounts, as on a
# machine that never had them; fails if `swift` can still be found.
# usage: . hide-build.sh ROOT [FOLDER...]
hide_build_root=$1
shift
for folder in /opt/swift "$hide_build_root/.build" "$hide_build_root/out" "$@"; do
    if [ -d "$folder" ]; then mount -t tmpfs -o size=1m tmpfs "$folder"; fi
done
if command -v swift >/dev/null 2>&1; then echo "FAIL: swift is still visible"; exit 1; fi
