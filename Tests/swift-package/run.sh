#!/usr/bin/env bash
# PhoneAuthKit as a Swift developer meets it: examples/swift-hummingbird, copied to a directory
# outside the repository with its dependency on PhoneAuth pointed at this checkout by path, is
# built, and its own tests run (a test number signed in through PhoneAuthKit, and through the
# example's routes over HTTP on loopback). The build is kept in .build-example between runs.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/phoneauth-swift-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
tar -C "$repo/examples/swift-hummingbird" --exclude=.build -cf - . | tar -C "$work" -xf -
sed -i "s|path: \"../..\"|path: \"$repo\"|" "$work/Package.swift"
grep -q "path: \"$repo\"" "$work/Package.swift" || { echo "the example's Package.swift names PhoneAuth by another path" >&2; exit 1; }
cd "$work"
swift build --scratch-path "$repo/.build-example"
swift test --scratch-path "$repo/.build-example"
