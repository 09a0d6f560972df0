#!/usr/bin/env bash
# PhoneAuthKit as a Swift developer meets it: examples/swift-hummingbird, copied to a directory
# outside the repository with its dependency on PhoneAuth pointed at this checkout by path, is
# built, and its own tests run (a test number signed in through PhoneAuthKit, and through the
# example's routes over HTTP on loopback). The build is kept in .build-example between runs.
#   run.sh          build and test
#   run.sh build    build only, tests included (make test does this in the background, early)
set -euo pipefail
mode=${1:-all}
case $mode in all|build) ;; *) echo "usage: $0 [build]" >&2; exit 2 ;; esac
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/phoneauth-swift-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
tar -C "$repo/examples/swift-hummingbird" --exclude=.build -cf - . | tar -C "$work" -xf -
sed -i "s|path: \"../..\"|path: \"$repo\"|" "$work/Package.swift"
grep -q "path: \"$repo\"" "$work/Package.swift" || { echo "the example's Package.swift names PhoneAuth by another path" >&2; exit 1; }
cd "$work"
swift build --build-tests --scratch-path "$repo/.build-example"
[ "$mode" = build ] || swift test --scratch-path "$repo/.build-example"
