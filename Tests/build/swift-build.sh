#!/usr/bin/env bash
# Every swift build of the Makefile goes through here: the compiler's output goes to a log
# (out/build-logs/NAME.log, kept), and what is shown is what a reader needs: the errors if it
# fails, else one line with the time and the count of dependencies' warnings. A warning from the
# project's own files (Sources/, Tests/ here, and those of the package in PROJECT_ROOTS, such as the
# outside example package) fails the build: the project keeps none. VERBOSE=1 shows everything.
#   swift-build.sh NAME swift build|test ARGS...
set -euo pipefail
name=$1
shift
repo=$(cd "$(dirname "$0")/../.." && pwd)
logs=$repo/out/build-logs
mkdir -p "$logs"
log=$logs/$name.log
started=$SECONDS
status=0
if [ -n "${VERBOSE:-}" ]; then
  "$@" 2>&1 | tee "$log" || status=${PIPESTATUS[0]}
else
  "$@" >"$log" 2>&1 || status=$?
fi
if [ "$status" != 0 ]; then
  [ -n "${VERBOSE:-}" ] || { grep -E '(error|fatal):' "$log" | sort -u | head -50; tail -n 30 "$log"; } >&2
  echo "== $name failed (exit $status; full log: $log)" >&2
  exit "$status"
fi
# A warning line names its file first: /path/file:line:col: warning: ...
roots="$repo ${PROJECT_ROOTS:-}"
pattern=$(for root in $roots; do printf '%s|' "$(printf '%s' "$root" | sed 's/[.[\*^$()+?{|]/\\&/g')"; done)
pattern="^(${pattern%|})/(Sources|Tests)/[^:]+:[0-9]+(:[0-9]+)?: warning:"
own=$(grep -E "$pattern" "$log" | sed "s|^$repo/||" | sort -u || true)
others=$(grep -E ': warning:' "$log" | grep -cvE "$pattern" || true)
if [ -n "$own" ]; then
  echo "$own" >&2
  echo "== $name: $(grep -c . <<<"$own") warning(s) from the project's own files (above; the project keeps none; full log: $log)" >&2
  exit 1
fi
echo "== $name: built in $((SECONDS - started)) s, no warning from the project's files ($others from dependencies: $log)"
