#!/usr/bin/env bash
# Runs every test of the package on a fresh Linux machine: installs and starts what the
# tests need, then `swift test`. Safe to run again.
#
# PostgreSQL: unless TALLY_TEST_POSTGRES_URL is already set, a throwaway server is started
# from .build-test/postgres on 127.0.0.1 (port TALLY_TEST_POSTGRES_PORT, default 55432, or the
# next free one) and stopped on exit; the storage conformance tests then run on it as well as
# on SQLite. When it cannot be installed or started, the tests run on SQLite only.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"

# Debian packages the tests need, installed when missing.
packages=(libsqlite3-dev)
[ -n "${TALLY_TEST_POSTGRES_URL:-}" ] || packages+=(postgresql)
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"; }; then
    echo "warning: could not install ${missing[*]}; continuing with what is there." >&2
  fi
fi

vectors="${TALLY_VECTORS:-../shared/vectors}"
if [ ! -d "$vectors" ]; then
  echo "note: $vectors is absent: the conformance tests on Apple's vectors and real App Store data will be skipped." >&2
fi

# --- PostgreSQL --------------------------------------------------------------------------

postgres_note() {
  echo "" >&2
  echo "################################################################################" >&2
  echo "## NOTE: PostgreSQL is not available: $1" >&2
  echo "## The storage conformance tests run on SQLite only." >&2
  echo "################################################################################" >&2
  echo "" >&2
}

# Runs a command as the postgres user (initdb and postgres refuse to run as root).
as_postgres() {
  if [ "$(id -un)" = postgres ]; then
    "$@"
  elif [ "$(id -u)" = 0 ] && command -v runuser >/dev/null; then
    runuser -u postgres -- "$@"
  else
    sudo -n -u postgres -- "$@"
  fi
}

port_is_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
pg_root="$(pwd)/.build-test/postgres"
pg_run=""

# Stops the server of a run folder (if it runs) and deletes the folder.
remove_run() {
  if [ -f "$1/data/postmaster.pid" ] && [ -n "$pg_bin" ]; then
    as_postgres "$pg_bin/pg_ctl" -D "$1/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$1" 2>/dev/null || $sudo rm -rf "$1" 2>/dev/null || true
}

stop_postgres() {
  [ -z "$pg_run" ] || remove_run "$pg_run"
  pg_run=""
}

# Each run gets its own cluster (.build-test/postgres/run-PID, ~2 s to create), so runs at the
# same time in one checkout do not share a server; folders of runs no longer alive are removed.
start_postgres() {
  if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ] || [ ! -x "$pg_bin/pg_ctl" ]; then
    postgres_note "no server binaries under /usr/lib/postgresql/*/bin"; return 1
  fi
  if ! id postgres >/dev/null 2>&1; then
    postgres_note "there is no postgres user"; return 1
  fi
  mkdir -p "$pg_root"
  local stale
  for stale in "$pg_root"/run-*; do
    [ -d "$stale" ] || continue
    kill -0 "${stale##*/run-}" 2>/dev/null || remove_run "$stale"
  done
  local run="$pg_root/run-$$"
  mkdir -p "$run"
  if ! chown postgres:postgres "$run" 2>/dev/null && ! $sudo chown postgres:postgres "$run" 2>/dev/null; then
    postgres_note "cannot give $run to the postgres user"; rm -rf "$run"; return 1
  fi
  if ! as_postgres test -w "$run"; then
    # The checkout is not reachable by the postgres user: use /tmp instead.
    rm -rf "$run"
    run="$(mktemp -d /tmp/tally-test-postgres.XXXXXX)"
    chown postgres:postgres "$run" 2>/dev/null || $sudo chown postgres:postgres "$run" 2>/dev/null || true
  fi
  pg_run="$run"
  local pg_data="$run/data"
  if ! as_postgres "$pg_bin/initdb" -D "$pg_data" -A trust -U postgres --no-sync >"$run/initdb.log" 2>&1; then
    postgres_note "initdb failed: $(tail -n 3 "$run/initdb.log" 2>/dev/null)"; stop_postgres; return 1
  fi

  local port="${TALLY_TEST_POSTGRES_PORT:-55432}" tries=0
  until port_is_free "$port"; do
    port=$((port + 1)); tries=$((tries + 1))
    [ $tries -lt 100 ] || { postgres_note "no free port from ${TALLY_TEST_POSTGRES_PORT:-55432}"; stop_postgres; return 1; }
  done
  # TCP on loopback only, no Unix socket (so no socket folder is needed); durability is off,
  # this server is thrown away after the run.
  if ! as_postgres "$pg_bin/pg_ctl" -D "$pg_data" -l "$pg_data/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories= -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
      start >/dev/null 2>&1; then
    postgres_note "the server did not start: $(tail -n 3 "$pg_data/server.log" 2>/dev/null)"; stop_postgres; return 1
  fi
  export TALLY_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres"
  echo "PostgreSQL $(basename "$(dirname "$pg_bin")") runs for the tests at $TALLY_TEST_POSTGRES_URL" >&2
}

if [ -n "${TALLY_TEST_POSTGRES_URL:-}" ]; then
  echo "Using the PostgreSQL server at TALLY_TEST_POSTGRES_URL for the tests." >&2
else
  trap stop_postgres EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  start_postgres || true
fi

# --- Tests ---------------------------------------------------------------------------------

status=0
swift test "$@" || status=$?
exit $status
