#!/usr/bin/env bash
# Runs CMD with ThreadSanitizer's reports written to files, and fails if any was written: the
# debug build is instrumented, and a race in a program that a test starts (phoneauthd, the
# command) would otherwise only reach that program's stderr, which most tests do not read.
#   with-tsan-reports.sh NAME CMD [ARGS...]
# Reports go to out/tsan-reports/NAME/ (emptied first); the exit status is CMD's, or 1 when CMD
# passed but a report was written (the reports are printed).
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 NAME CMD [ARGS...]" >&2; exit 2; }
dir=$(cd "$(dirname "$0")/../.." && pwd)/out/tsan-reports/$1
shift
rm -rf "$dir"
mkdir -p "$dir"
TSAN_OPTIONS="log_path=$dir/report${TSAN_OPTIONS:+:$TSAN_OPTIONS}" "$@"
status=$?
reports=("$dir"/report*)
if [ -e "${reports[0]}" ]; then
  cat "${reports[@]}" >&2
  echo "== ThreadSanitizer reports from ${#reports[@]} process(es) (above; kept in $dir)" >&2
  [ "$status" = 0 ] && status=1
fi
exit "$status"
