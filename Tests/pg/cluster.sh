#!/usr/bin/env bash
# A private, throwaway PostgreSQL cluster for the tests.
#   cluster.sh start DIR      new cluster in DIR/data on 127.0.0.1:<free port>, socket in DIR;
#                             writes (and prints) DIR/env with the PHONEAUTH_TEST_* variables
#   cluster.sh stop DIR       fast shutdown; nothing to do if it is not running
#   cluster.sh restart DIR    fast shutdown and start again, same port
#   cluster.sh psql DIR ARGS  psql as the superuser over the unix socket
# A primary and its synchronous standby (fail-over tests), each in a DIR of its own:
#   cluster.sh primary DIR [NAME]   as start, and replicating: `local replication` trusted,
#                             synchronous_standby_names = NAME (default standby) and
#                             synchronous_commit = on, so a COMMIT waits for that standby
#   cluster.sh standby PRIMARY_DIR DIR [NAME]
#                             pg_basebackup of PRIMARY_DIR (replication slot NAME), started on a
#                             free port as the standby NAME; waits until the primary streams to
#                             it; writes DIR/env as start does (same role and password)
#   cluster.sh up DIR         start a stopped cluster again, same port (a standby catches up)
#   cluster.sh promote DIR    the standby in DIR becomes a primary (waits until it is one)
#   cluster.sh kill DIR       SIGKILL the postmaster and all its processes at once (a crash)
#   cluster.sh freeze DIR     SIGSTOP the postmaster and all its processes (a hung host)
#   cluster.sh thaw DIR       SIGCONT them
# The server log is DIR/server.log. PostgreSQL refuses to run as root: as root, DIR belongs to
# the `postgres` user and the server tools run through runuser.
set -euo pipefail

usage() {
  echo "usage: $0 start|primary|stop|restart|up|promote|kill|freeze|thaw|psql DIR [NAME | psql args]" >&2
  echo "       $0 standby PRIMARY_DIR DIR [NAME]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
cmd=$1; shift
dir=$1; shift

PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)}
[ -x "$PGBIN/pg_ctl" ] || { echo "cluster.sh: no PostgreSQL server binaries (set PGBIN)" >&2; exit 1; }
SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")

# Runs a server tool as the cluster's owner. cd first: runuser keeps the working directory,
# and tools run as postgres complain when they cannot read it (e.g. /root).
as_owner() {
  if [ "$(id -u)" = 0 ]; then (cd "$dir" && runuser -u postgres -- "$@"); else "$@"; fi
}
# The superuser over the unix socket (trust auth); the port is kept in DIR/port.
su_psql() { su_psql_in "$dir" "$@"; }
su_psql_in() { local at=$1; shift; "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$at" -p "$(cat "$at/port")" -U postgres "$@"; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# -s: errors only; -l always, or the server would write its log into our stdout (and hold
# open the pipe of whoever runs us, e.g. a test calling PHONEAUTH_TEST_PG_RESTART).
pg_ctl() { as_owner "$PGBIN/pg_ctl" -s -D "$dir/data" -l "$dir/server.log" "$@"; }

# Makes DIR (absolute from then on) for a new cluster; as root, owned by postgres.
new_dir() {
  # The restart command is split on spaces; the socket path (DIR/.s.PGSQL.<port>) must fit in
  # the 107 bytes of sun_path.
  case $dir in *[[:space:]\"\'\\]*) echo "cluster.sh: DIR must not contain spaces or quotes" >&2; exit 2 ;; esac
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ ${#dir} -le 90 ] || { echo "cluster.sh: DIR is too long for a unix socket path: $dir" >&2; exit 2; }
  if [ "$(id -u)" = 0 ]; then
    chown postgres: "$dir"
    as_owner test -w "$dir" || { echo "cluster.sh: user postgres cannot reach $dir (check the parent folders)" >&2; exit 1; }
  fi
}

# Starts the server of DIR/data on a free port, kept in DIR/port and in its postgresql.conf.
start_on_free_port() {
  # The free port can be taken by someone else between our probe and the server's bind:
  # then try another one.
  local port err tries=0
  while :; do
    port=$(free_port)
    as_owner sed -i "s/^port = .*/port = $port/" "$dir/data/postgresql.conf"
    echo "$port" > "$dir/port"
    err=$(pg_ctl start -w -t 60 2>&1) && break
    tries=$((tries + 1))
    if [ $tries -ge 5 ] || ! grep -q 'could not bind\|could not create any TCP/IP sockets' "$dir/server.log"; then
      echo "cluster.sh: the server did not start: $err" >&2
      echo "$dir/server.log ends with:" >&2
      tail -n 20 "$dir/server.log" >&2
      exit 1
    fi
  done
}

# Writes (and prints) DIR/env for the tests' URL $1.
write_env() {
  cat > "$dir/env" <<EOF
export PHONEAUTH_TEST_POSTGRES_URL=$1
export PHONEAUTH_TEST_PG_DIR=$dir
export PHONEAUTH_TEST_PG_RESTART="bash $SELF restart $dir"
EOF
  cat "$dir/env"
}

# A new cluster; given a standby's name ($1, for `primary`), the primary of that synchronous standby.
start() {
  local sync_name=${1:-}
  new_dir

  as_owner "$PGBIN/initdb" -D "$dir/data" -U postgres -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  # Our own pg_hba.conf: trust on the socket (the superuser, for setup and debugging), passwords
  # over TCP so the tests' URL goes through real scram-sha-256 authentication.
  as_owner tee "$dir/data/pg_hba.conf" >/dev/null <<EOF
local all all                trust
host  all all 127.0.0.1/32   scram-sha-256
EOF
  as_owner tee -a "$dir/data/postgresql.conf" >/dev/null <<EOF

# Test cluster (Tests/pg/cluster.sh)
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
max_connections = 200
port = 0
EOF
  if [ -n "$sync_name" ]; then
    # The standby copies and streams over the unix socket, as postgres.
    echo "local replication all        trust" | as_owner tee -a "$dir/data/pg_hba.conf" >/dev/null
    as_owner tee -a "$dir/data/postgresql.conf" >/dev/null <<EOF

# Primary of a synchronous standby (cluster.sh primary): a COMMIT returns once the standby
# has flushed its WAL.
wal_level = replica
max_wal_senders = 5
max_replication_slots = 5
synchronous_standby_names = '$sync_name'
synchronous_commit = on
EOF
  fi

  start_on_free_port
  local port
  port=$(cat "$dir/port")

  # Hex, so the password needs no escaping in the URL or in SQL.
  local pw
  pw=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
  # Through stdin, so the password does not show in ps. A primary has no standby yet: its
  # setup must not wait for one.
  su_psql -d postgres <<EOF
SET synchronous_commit = local;
CREATE ROLE phoneauth LOGIN PASSWORD '$pw';
CREATE DATABASE phoneauth OWNER phoneauth;
EOF

  local url="postgresql://phoneauth:$pw@127.0.0.1:$port/phoneauth"
  # pg_ctl -w waited for the server; check that the tests' way in (TCP + password) works too.
  "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$port" -t 30
  "$PGBIN/psql" -X -q -At "$url" -c 'select 1' >/dev/null

  write_env "$url"
}

# A hot standby, in DIR ($1), of the primary in the folder the command was given first.
standby() {
  local primary=$dir name=${2:-standby}
  dir=$1
  [ -f "$primary/port" ] && [ -f "$primary/env" ] || { echo "cluster.sh: no cluster in $primary" >&2; exit 2; }
  new_dir
  # -C -S: a replication slot, so that the primary keeps the WAL a stopped standby has yet to
  # read. -R writes standby.signal and primary_conninfo; ours, after it in postgresql.auto.conf,
  # gives the application_name that synchronous_standby_names waits for.
  as_owner "$PGBIN/pg_basebackup" -h "$primary" -p "$(cat "$primary/port")" -U postgres -D "$dir/data" \
    -X stream -c fast -C -S "$name" -R >"$dir/basebackup.log" 2>&1 \
    || { cat "$dir/basebackup.log" >&2; exit 1; }
  as_owner tee -a "$dir/data/postgresql.auto.conf" >/dev/null <<EOF
primary_conninfo = 'host=$primary port=$(cat "$primary/port") user=postgres application_name=$name'
primary_slot_name = '$name'
EOF
  # Its own socket; and once promoted, no standby of its own to wait for.
  as_owner sed -i "s|^unix_socket_directories = .*|unix_socket_directories = '$dir'|" "$dir/data/postgresql.conf"
  as_owner tee -a "$dir/data/postgresql.conf" >/dev/null <<EOF

# Standby $name of $primary (cluster.sh standby)
synchronous_standby_names = ''
hot_standby = on
EOF
  start_on_free_port
  # Streaming, as the primary sees it.
  local tries=0
  until [ "$(su_psql_in "$primary" -d postgres -At -c \
      "select count(*) from pg_stat_replication where application_name = '$name' and state = 'streaming'")" = 1 ]; do
    tries=$((tries + 1))
    if [ $tries -ge 600 ]; then
      echo "cluster.sh: the standby $name does not stream from $primary; $dir/server.log ends with:" >&2
      tail -n 20 "$dir/server.log" >&2
      exit 1
    fi
    sleep 0.1
  done
  # The role and its password came with the copy: the primary's URL, on this port.
  local url
  url=$(sed -n 's/^export PHONEAUTH_TEST_POSTGRES_URL=//p' "$primary/env")
  write_env "${url/@127.0.0.1:$(cat "$primary/port")\//@127.0.0.1:$(cat "$dir/port")/}"
}

# The postmaster's pid, then its children's (nothing when no server runs in DIR). A killed
# postmaster leaves its postmaster.pid, and is a zombie until init reaps it: not running.
server_pids() {
  local pid
  pid=$(head -n1 "$dir/data/postmaster.pid" 2>/dev/null) || return 0
  ps -o stat= -p "$pid" 2>/dev/null | grep -qv '^Z' || return 0
  echo "$pid"
  ps -o pid= --ppid "$pid" || true
}

# Sends a signal to every process of the server. STOP and KILL stop the postmaster first, so
# that it forks no one more, then its children: none of them runs on (and sees the others
# go) while the signal goes round. KILL then waits until they are all gone.
signal_server() {
  local signal=$1 pids postmaster
  pids=$(server_pids)
  [ -n "$pids" ] || { echo "cluster.sh: no server runs in $dir" >&2; exit 1; }
  postmaster=$(echo "$pids" | head -n1)
  if [ "$signal" = CONT ]; then
    # The children first: the postmaster, woken, finds them running.
    # shellcheck disable=SC2046
    kill -CONT $(ps -o pid= --ppid "$postmaster") 2>/dev/null || true
    kill -CONT "$postmaster"
    return
  fi
  kill -STOP "$postmaster"
  pids=$(server_pids)  # no child can be added now
  # shellcheck disable=SC2086
  kill -STOP $pids
  [ "$signal" = STOP ] && return
  # shellcheck disable=SC2086
  kill -"$signal" $pids
  # Gone, or dead and waiting for init to reap them (zombies: state Z), which may take a while.
  local tries=0 list
  list=$(echo $pids | tr ' ' ,)
  while ps -o stat= -p "$list" | grep -qv '^Z'; do
    tries=$((tries + 1))
    [ $tries -lt 200 ] || { echo "cluster.sh: the server in $dir does not die" >&2; exit 1; }
    sleep 0.05
  done
}

# psql takes a relative socket folder for a host name.
[ "$cmd" = start ] || [ "$cmd" = primary ] || [ ! -d "$dir" ] || dir=$(cd "$dir" && pwd)
case $cmd in
  start) start ;;
  primary) start "${1:-standby}" ;;
  standby) [ $# -ge 1 ] || usage; standby "$@" ;;
  up) pg_ctl start -w -t 60 ;;
  promote) pg_ctl promote -w -t 60 ;;
  kill) signal_server KILL ;;
  freeze) signal_server STOP ;;
  thaw) signal_server CONT ;;
  stop)
    # Nothing to stop when there is no cluster, or no server running in it (status exits 3 or 4;
    # a killed one's postmaster may still be a zombie, which status takes for running).
    pg_ctl status >/dev/null 2>&1 || exit 0
    [ -n "$(server_pids)" ] || exit 0
    pg_ctl stop -m fast -w ;;
  restart) pg_ctl restart -m fast -w -t 60 ;;
  psql) su_psql -d phoneauth "$@" ;;
  *) usage ;;
esac
