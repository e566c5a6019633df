#!/usr/bin/env bash
# PostgreSQL 15 for the tests: install it, start a throw-away server, stop it.
#
#   .ci/postgres.sh install          install postgresql-15 (Debian) if missing,
#                                    then pgvector into it (see pgvector)
#   .ci/postgres.sh pgvector         build pgvector from Debian trixie's source
#                                    package (version pinned, cached by version)
#                                    and install it into PostgreSQL 15
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

# pgvector: Debian 12 (bookworm) does not package it; trixie's source
# package does, and builds against bookworm's postgresql-server-dev-15.
# apt gets it with a configuration of its own (one deb-src line, on the
# URI and keyring of the machine's debian.sources, lists and caches in a
# temporary folder): nothing changes in the system's lists. apt-get source
# checks the files against the signed Sources index, dpkg-source -x against
# the .dsc's checksums. The build uses portable flags (OPTFLAGS="": no
# -march=native), and its product (vector.so, vector.control, the SQL
# scripts) is cached under $PGVECTOR_CACHE/pgvector-<version>/; a run with
# the cache present copies it (when the installed files differ) and builds
# nothing.
PGVECTOR_VERSION=0.8.0-1 # trixie's pgvector; a different version fails
PGVECTOR_CACHE=${PGVECTOR_CACHE:-$HOME/.cache/codeloc}
PG_CONFIG=$PGBIN/pg_config

pgvector() {
  local cache=$PGVECTOR_CACHE/pgvector-$PGVECTOR_VERSION
  if [ ! -s "$cache/vector.so" ]; then
    build_pgvector "$cache"
  fi
  install_pgvector "$cache"
}

# pgvector_dirs sets libdir and extdir, where PostgreSQL 15 loads
# extensions from.
pgvector_dirs() {
  libdir=$("$PG_CONFIG" --pkglibdir) && extdir=$("$PG_CONFIG" --sharedir)/extension ||
    die "$PG_CONFIG failed: is postgresql-15 installed?"
}

install_pgvector() {
  local cache=$1 libdir extdir f same=1
  pgvector_dirs
  cmp -s "$cache/vector.so" "$libdir/vector.so" || same=0
  for f in "$cache"/vector.control "$cache"/vector--*.sql; do
    cmp -s "$f" "$extdir/${f##*/}" || same=0
  done
  if [ $same = 1 ]; then
    echo "postgres.sh: pgvector $PGVECTOR_VERSION is installed (cached in $cache)" >&2
    return 0
  fi
  [ "$(id -u)" = 0 ] || die "pgvector $PGVECTOR_VERSION is not installed in $libdir and installing it needs root"
  install -m 0755 "$cache/vector.so" "$libdir/vector.so"
  install -m 0644 "$cache"/vector.control "$cache"/vector--*.sql "$extdir/"
  echo "postgres.sh: installed pgvector $PGVECTOR_VERSION into $libdir and $extdir (from $cache)" >&2
}

build_pgvector() {
  local cache=$1 start=$SECONDS
  [ "$(id -u)" = 0 ] || die "pgvector $PGVECTOR_VERSION is not built ($cache is missing) and building it needs root (apt-get)"
  local sources=/etc/apt/sources.list.d/debian.sources uri keyring
  [ -r "$sources" ] || die "$sources is missing: cannot find the Debian mirror and keyring"
  # The first stanza's URI and keyring: the main archive.
  uri=$(awk '/^URIs:/ {print $2; exit}' "$sources")
  keyring=$(awk '/^Signed-By:/ {print $2; exit}' "$sources")
  [ -n "$uri" ] && [ -r "$keyring" ] || die "$sources names no URI or no readable Signed-By keyring"
  export DEBIAN_FRONTEND=noninteractive
  if [ ! -x "$PG_CONFIG" ] || [ ! -f "$("$PG_CONFIG" --includedir-server)/postgres.h" ]; then
    # The headers of the installed server's version when the lists still
    # have it (no server upgrade as a side effect), else the candidate's.
    local pgver
    pgver=$(dpkg-query -W -f='${Version}' postgresql-15 2>/dev/null || true)
    apt-get install -y -qq --no-install-recommends "postgresql-server-dev-15${pgver:+=$pgver}" >&2 ||
      apt-get install -y -qq --no-install-recommends postgresql-server-dev-15 >&2 || {
      apt-get update -qq >&2
      apt-get install -y -qq --no-install-recommends postgresql-server-dev-15 >&2
    }
  fi
  command -v dpkg-source >/dev/null || apt-get install -y -qq --no-install-recommends dpkg-dev >&2
  work=$(mktemp -d "${TMPDIR:-/tmp}/codeloc-pgvector.XXXXXX") # global: the EXIT trap reads it
  trap 'rm -rf "$work"' EXIT
  chmod 0755 "$work" # apt downloads as the _apt user
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
  echo "deb-src [signed-by=$keyring] $uri trixie main" >"$work/trixie.list"
  local -a apt=(-o "Dir::Etc::SourceList=$work/trixie.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1)
  apt-get "${apt[@]}" update -qq >&2 || die "apt-get update of trixie's sources failed"
  local version
  version=$(apt-cache "${apt[@]}" showsrc pgvector | awk '/^Version:/ {print $2; exit}')
  [ "$version" = "$PGVECTOR_VERSION" ] ||
    die "trixie's pgvector is version ${version:-<none>}, pinned $PGVECTOR_VERSION: check the new version, then change PGVECTOR_VERSION in .ci/postgres.sh"
  chown _apt "$work/src" 2>/dev/null || true
  (cd "$work/src" && apt-get "${apt[@]}" source --download-only -qq "pgvector=$PGVECTOR_VERSION" >&2) ||
    die "apt-get source pgvector=$PGVECTOR_VERSION failed"
  local dsc
  dsc=$(ls "$work"/src/pgvector_*.dsc)
  (cd "$work/src" && dpkg-source -x "$dsc" pgvector >&2) || die "dpkg-source -x $dsc failed (checksums?)"
  local built=$SECONDS
  make -C "$work/src/pgvector" -j"$(nproc)" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >"$work/build.log" 2>&1 ||
    { tail -n 30 "$work/build.log" >&2; die "building pgvector $PGVECTOR_VERSION failed"; }
  mkdir -p "$cache.tmp"
  cp "$work/src/pgvector/vector.so" "$work/src/pgvector/vector.control" "$work"/src/pgvector/sql/vector--*.sql "$cache.tmp/"
  rm -rf "$cache" && mv "$cache.tmp" "$cache"
  echo "postgres.sh: built pgvector $PGVECTOR_VERSION into $cache in $((SECONDS - start))s (make: $((SECONDS - built))s)" >&2
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
  install) install_pg && pgvector ;;
  pgvector) pgvector ;;
  start) [ $# = 3 ] || die "usage: $0 start DIR PORT"; start_pg "$2" "$3" ;;
  stop) [ $# = 2 ] || die "usage: $0 stop DIR"; stop_pg "$2" ;;
  *) die "usage: $0 install | pgvector | start DIR PORT | stop DIR" ;;
esac
