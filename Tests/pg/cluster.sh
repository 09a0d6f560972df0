#!/usr/bin/env bash
# A private, throwaway PostgreSQL cluster for the tests.
#   cluster.sh start DIR      new cluster in DIR/data on 127.0.0.1:<free port>, socket in DIR;
#                             writes (and prints) DIR/env with the PHONEAUTH_TEST_* variables
#   cluster.sh stop DIR       fast shutdown; nothing to do if it is not running
#   cluster.sh restart DIR    fast shutdown and start again, same port
#   cluster.sh psql DIR ARGS  psql as the superuser over the unix socket
# The server log is DIR/server.log. PostgreSQL refuses to run as root: as root, DIR belongs to
# the `postgres` user and the server tools run through runuser.
set -euo pipefail

usage() { echo "usage: $0 start|stop|restart|psql DIR [psql args]" >&2; exit 2; }
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
su_psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$(cat "$dir/port")" -U postgres "$@"; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# -s: errors only; -l always, or the server would write its log into our stdout (and hold
# open the pipe of whoever runs us, e.g. a test calling PHONEAUTH_TEST_PG_RESTART).
pg_ctl() { as_owner "$PGBIN/pg_ctl" -s -D "$dir/data" -l "$dir/server.log" "$@"; }

start() {
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

  # Hex, so the password needs no escaping in the URL or in SQL.
  local pw
  pw=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
  # Through stdin, so the password does not show in ps.
  su_psql -d postgres <<EOF
CREATE ROLE phoneauth LOGIN PASSWORD '$pw';
CREATE DATABASE phoneauth OWNER phoneauth;
EOF

  local url="postgresql://phoneauth:$pw@127.0.0.1:$port/phoneauth"
  # pg_ctl -w waited for the server; check that the tests' way in (TCP + password) works too.
  "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$port" -t 30
  "$PGBIN/psql" -X -q -At "$url" -c 'select 1' >/dev/null

  cat > "$dir/env" <<EOF
export PHONEAUTH_TEST_POSTGRES_URL=$url
export PHONEAUTH_TEST_PG_DIR=$dir
export PHONEAUTH_TEST_PG_RESTART="bash $SELF restart $dir"
EOF
  cat "$dir/env"
}

# psql takes a relative socket folder for a host name.
[ "$cmd" = start ] || [ ! -d "$dir" ] || dir=$(cd "$dir" && pwd)
case $cmd in
  start) start ;;
  stop)
    # Nothing to stop when there is no cluster, or no server running in it (status exits 3 or 4).
    pg_ctl status >/dev/null 2>&1 || exit 0
    pg_ctl stop -m fast -w ;;
  restart) pg_ctl restart -m fast -w -t 60 ;;
  psql) su_psql -d phoneauth "$@" ;;
  *) usage ;;
esac
