#!/usr/bin/env bash
# PostgreSQL 15 for the tests: install it, start a throw-away server, stop it.
#
#   .ci/postgres.sh install          install postgresql-15 (Debian) if missing
#   .ci/postgres.sh start DIR PORT   initdb DIR/data (once) and start a server on
#                                    127.0.0.1:PORT with its unix socket in DIR;
#                                    prints its URL (superuser postgres, trust
#                                    auth, no password) as the last stdout line
#   .ci/postgres.sh stop DIR         stop the server started in DIR
#
# The server is for tests only: fsync, full_page_writes and synchronous_commit
# are off. Root cannot run postgres, so as root DIR is handed to the postgres
# user (created by the Debian package) and the server runs as that user.
# Without a database URL in CODELOC_TEST_DATABASE_URL, the migrate tests call
# "start" and "stop" themselves (see migrate/main_test.go).
set -euo pipefail

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}

die() { echo "postgres.sh: $*" >&2; exit 1; }

install_pg() {
  [ -x "$PGBIN/postgres" ] && return 0
  [ "$(id -u)" = 0 ] || die "$PGBIN/postgres is missing and installing postgresql-15 needs root"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends postgresql-15 >&2
  [ -x "$PGBIN/postgres" ] || die "postgresql-15 installed but $PGBIN/postgres is still missing"
}

# as_owner runs a command as the user that owns the data directory: the
# caller itself, or postgres when the caller is root.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

start_pg() {
  local dir=$1 port=$2
  [[ $port =~ ^[0-9]+$ ]] || die "PORT must be a number, got '$port'"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  install_pg
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || die "running as root needs the postgres user (created by the postgresql-15 package)"
    chown -R postgres: "$dir"
  fi
  if [ ! -s "$dir/data/PG_VERSION" ]; then
    as_owner "$PGBIN/initdb" -D "$dir/data" -U postgres --auth=trust \
      --encoding=UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  fi
  as_owner "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 start \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=50" \
    >/dev/null || { tail -n 20 "$dir/postgres.log" >&2; die "the server did not start on port $port"; }
  echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
}

stop_pg() {
  local dir=$1
  [ -f "$dir/data/postmaster.pid" ] || return 0
  as_owner "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null
}

case "${1:-}" in
  install) install_pg ;;
  start) [ $# = 3 ] || die "usage: $0 start DIR PORT"; start_pg "$2" "$3" ;;
  stop) [ $# = 2 ] || die "usage: $0 stop DIR"; stop_pg "$2" ;;
  *) die "usage: $0 install | start DIR PORT | stop DIR" ;;
esac
