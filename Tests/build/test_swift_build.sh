#!/usr/bin/env bash
# swift-build.sh's warning rule, tested with commands that print what swiftc would: a warning
# from the project's Sources/ or Tests/ (or a PROJECT_ROOTS package's) fails the build, a
# dependency's does not, and a failing command's status comes through.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
failures=0

# expect STATUS OUTPUT_PATTERN LINE [ENV...]: swift-build.sh on a command printing LINE exits
# STATUS and says something matching OUTPUT_PATTERN.
expect() {
  local want=$1 says=$2 line=$3 output status
  shift 3
  output=$(env "$@" bash "$here/swift-build.sh" swift-build-selftest printf '%s\n' "$line" 2>&1)
  status=$?
  if [ "$status" != "$want" ] || ! grep -qE "$says" <<<"$output"; then
    echo "FAIL: '$line' ($*): exit $status, want $want; said: $output"
    failures=$((failures + 1))
  fi
}

expect 1 "1 warning\\(s\\) from the project's own files" "$repo/Sources/PhoneAuthCore/X.swift:3:5: warning: never used"
expect 1 "1 warning\\(s\\)" "$repo/Tests/PhoneAuthCoreTests/Y.swift:7: warning: will never be executed"
expect 0 "1 from dependencies" "$repo/.build/checkouts/swift-nio/Sources/NIOCore/Z.swift:1:1: warning: deprecated"
expect 0 "0 from dependencies" "note: $repo/Sources/PhoneAuthCore/X.swift is fine"
expect 1 "1 warning\\(s\\)" "/tmp/outside.pkg/Sources/App/A.swift:2:1: warning: unused" PROJECT_ROOTS=/tmp/outside.pkg
# The root is matched literally: a dot in it is not any character.
expect 0 "1 from dependencies" "/tmp/outsideXpkg/Sources/App/A.swift:2:1: warning: unused" PROJECT_ROOTS=/tmp/outside.pkg
output=$(bash "$here/swift-build.sh" swift-build-selftest bash -c 'echo "x.swift:1:1: error: no"; exit 3' 2>&1)
status=$?
if [ "$status" != 3 ] || ! grep -q "error: no" <<<"$output"; then
  echo "FAIL: a failing command: exit $status, want 3; said: $output"
  failures=$((failures + 1))
fi
rm -f "$repo/out/build-logs/swift-build-selftest.log"
[ "$failures" = 0 ] || exit 1
echo "swift-build.sh: warnings from the project's files fail the build, dependencies' do not"
