#!/usr/bin/env bash
# make test-all: every suite, ordered to keep both cores busy. Two builds that nothing needs until
# later (the outside Swift package, the ThreadSanitizer library) run in the background at the
# lowest priority while the tests that use one core run (C, valgrind, the packages, pytest), so
# those tests still get the CPU first. A background job's output goes to out/test-logs and is
# shown if it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
make=${MAKE:-make}
logs=out/test-logs
mkdir -p "$logs"
declare -A jobs
step=

# Every step and background job runs in a session of its own, and whatever is still running when
# this script ends, however it ends, is stopped: the whole session is signalled, because swift
# build puts each compiler job in a process group of its own. (bash runs a trap only between
# commands, so a step is waited for in the background: a TERM or Ctrl-C stops it at once.)
stop_all() {
  local sid
  for sid in $step "${jobs[@]}"; do pkill -TERM -s "$sid" 2>/dev/null || true; done
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

run() {
  local started=$SECONDS
  setsid "$make" --no-print-directory "$@" </dev/null &
  step=$!
  local status=0
  wait "$step" || status=$?
  step=
  # Each step's time, so the slow ones are known (make test is meant to stay well under 20 min).
  echo "== $* : $((SECONDS - started)) s (exit $status)"
  return "$status"
}

# Starts NAME at the lowest priority; its output goes to a log.
background() {
  local name=$1
  shift
  setsid nice -n 19 "$@" >"$logs/$name.log" 2>&1 </dev/null &
  jobs[$name]=$!
  echo "== $name: started in the background (log: $logs/$name.log)"
}

# Waits for NAME; fails the run with its log if it failed.
await() {
  local name=$1 started=$SECONDS
  if ! wait "${jobs[$name]}"; then
    unset "jobs[$name]"
    cat "$logs/$name.log" >&2
    echo "== $name failed (its log is above)" >&2
    exit 1
  fi
  unset "jobs[$name]"
  echo "== $name: done (waited $((SECONDS - started)) s for it)"
}

run test-swift check-swift-api
background swift-package-build bash Tests/swift-package/run.sh build
run test-server test-swift-postgres build
background tsan-lib "$make" --no-print-directory tsan-lib
# bench-smoke: every bench driver for a few flows, against the release library (build), the debug
# phoneauthd (test-server built it) and this run's PostgreSQL cluster, then the merged JSON's shape.
run test-c test-c-postgres check-memory check-portable example test-packages test-python-postgres bench-smoke
await tsan-lib
run check-tsan-threads
await swift-package-build
run test-swift-package
# pytest last, so the run closes on its summary line.
run test-python
