#!/usr/bin/env bash
# PhoneAuthKit as a Swift developer meets it: examples/swift-hummingbird, copied to a directory
# outside the repository with its dependency on PhoneAuth pointed at this checkout by path, is
# built, and its own tests run (a test number signed in through PhoneAuthKit, and through the
# example's routes over HTTP on loopback).
# It builds in the repository's own .build: the outside package resolves the same versions of the
# same dependencies, and SwiftPM names a target's build products by target, so what the debug
# build of this repository compiled (SwiftNIO, Hummingbird, swift-crypto, PhoneAuthKit itself) is
# reused and only the example's own targets compile (a minute, against a full build of every
# dependency in a scratch path of its own). The repository's next `swift build` plans again (a few
# seconds) and compiles nothing.
# SWIFT_FLAGS are the flags of the repository's debug build (the Makefile's DEBUG_FLAGS, but the
# root's trait choice: the example declares no traits): with others the shared .build would be
# compiled again.
#   run.sh          build and test
#   run.sh build    build only, tests included
set -euo pipefail
mode=${1:-all}
case $mode in all|build) ;; *) echo "usage: $0 [build]" >&2; exit 2 ;; esac
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/phoneauth-swift-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
tar -C "$repo/examples/swift-hummingbird" --exclude=.build -cf - . | tar -C "$work" -xf -
# Without PhoneAuth's default traits, as the repository's debug build: TLS is phoneauthd's alone, and
# a trait enabled is a compilation condition of every target of the package, which would compile
# PhoneAuthCore and PhoneAuthKit again.
sed -i "s|path: \"../..\"|path: \"$repo\", traits: []|" "$work/Package.swift"
grep -q "path: \"$repo\", traits: \[\]" "$work/Package.swift" || { echo "the example's Package.swift names PhoneAuth by another path" >&2; exit 1; }
cd "$work"
# The example's warnings count as the project's (swift-build.sh fails on them).
PROJECT_ROOTS=$work bash "$repo/Tests/build/swift-build.sh" swift-package \
  swift build --build-tests --scratch-path "$repo/.build" ${SWIFT_FLAGS-}
[ "$mode" = build ] || swift test --skip-build --scratch-path "$repo/.build" ${SWIFT_FLAGS-}
