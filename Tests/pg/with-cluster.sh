#!/usr/bin/env bash
# Runs CMD with a private PostgreSQL cluster (Tests/pg/cluster.sh) and its PHONEAUTH_TEST_*
# variables exported; stops the cluster and removes its folder however CMD ends.
#   with-cluster.sh CMD [ARGS...]     exits with CMD's status
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 CMD [ARGS...]" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

dir=$(mktemp -d /tmp/phoneauth-pg-XXXXXX)
cleanup() {
  bash "$here/cluster.sh" stop "$dir" || echo "with-cluster.sh: could not stop the cluster in $dir" >&2
  rm -rf "$dir"
}
# Set before the start, so that a half-started cluster is stopped too.
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bash "$here/cluster.sh" start "$dir" >/dev/null
# shellcheck source=/dev/null
source "$dir/env"
echo "PostgreSQL test cluster on 127.0.0.1:$(cat "$dir/port"), in $dir" >&2

# CMD runs in the background and we wait for it: bash runs no trap while a foreground command
# runs, so a TERM sent to this script alone would otherwise wait for CMD's end. Background
# commands get SIGINT and SIGQUIT ignored and stdin from /dev/null: the subshell and <&0 undo
# that, so Ctrl-C and a terminal reach CMD as usual.
( trap - INT QUIT; exec "$@" ) <&0 &
child=$!
trap 'kill -TERM $child 2>/dev/null || true' TERM
trap ':' INT  # CMD got the Ctrl-C too (same process group): wait for it to end
# A trap interrupts wait (status > 128): wait again until CMD has really ended.
rc=0
while :; do
  wait $child && rc=0 || rc=$?
  kill -0 $child 2>/dev/null || break
done
exit $rc
