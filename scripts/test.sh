#!/usr/bin/env bash
# Runs every test of both packages (the client at the root, the server in Server/) on a fresh
# Linux machine: installs and starts what the tests need, checks the format (swift format lint),
# then `swift test` in each package (and the Apple-only sources typechecked against stand-ins,
# scripts/check_apple_sources.sh, and the public API pinned, scripts/check_api.sh),
# then builds the release `tally` and runs a short smoke of it, then the crash check
# `scripts/chaos.sh --quick`. Safe to run again. Arguments go to both `swift test` runs
# (e.g. `--filter NAME`).
#
# PostgreSQL: unless TALLY_TEST_POSTGRES_URL is already set, a throwaway server is started
# from .build-test/postgres on 127.0.0.1 (port TALLY_TEST_POSTGRES_PORT, default 55432, or the
# next free one) and stopped on exit; the storage conformance tests then run on it as well as
# on SQLite. It also listens on a Unix-domain socket in its folder
# (TALLY_TEST_POSTGRES_SOCKET_URL, for the test of connecting through one). When it cannot be
# installed or started, the tests run on SQLite only.
#
# Chaos: once `swift test` passes, `scripts/chaos.sh --quick` kills and restarts the `tally`
# that `swift test` built (in its scratch path) under load, on SQLite and, when the throwaway
# PostgreSQL runs, on PostgreSQL too (about 20 s on 2 cores); a failure fails the run.
# TALLY_TEST_CHAOS=0 skips it. See docs/chaos.md.
#
# API probe: before chaos, `scripts/api_probe.sh` runs schemathesis against that `tally serve`
# (bounded, about two minutes); TALLY_TEST_PROBE=0 skips it.
#
# Hangs: every long step runs under `scripts/watch.py`; one that prints nothing for its limit (15
# minutes; 30 for the release build, 10 for each smoke command) is ended with a report of the
# tests it left running and its threads' backtraces, and fails the run (a test suite runs once
# more first).
#
# Console: then `scripts/console_walk.sh` walks the web console of that `tally serve` in a real
# headless Chromium (installed with apt when missing, with Selenium from PyPI); screenshots go
# to .build-test/console/. TALLY_TEST_CONSOLE=0 skips it.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"

# Debian packages the tests need, installed when missing.
packages=(libsqlite3-dev)
command -v python3 >/dev/null || packages+=(python3)  # scripts/chaos/driver.py, scripts/watch.py
command -v gdb >/dev/null || packages+=(gdb)  # scripts/watch.py's backtraces of a hung step
# The virtual environments of the API probe and of the self-written backend (bench server --self-written).
python3 -c 'import ensurepip' >/dev/null 2>&1 || packages+=(python3-venv)
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
# The SQLite headers are needed to build at all (the server and TallyKit use the system SQLite).
if ! dpkg -s libsqlite3-dev >/dev/null 2>&1 && [ ! -f /usr/include/sqlite3.h ]; then
  echo "error: libsqlite3-dev is missing and could not be installed (apt-get install libsqlite3-dev needs root or sudo)." >&2
  exit 1
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

# Runs a command of the throwaway server: as root, as the postgres user (initdb and postgres
# refuse to run as root); otherwise as the user running the tests, who owns the cluster.
as_postgres() {
  if [ "$(id -u)" != 0 ]; then
    "$@"
  elif command -v runuser >/dev/null; then
    runuser -u postgres -- "$@"
  else
    su postgres -s /bin/sh -c '"$0" "$@"' -- "$@"
  fi
}

# As root, the cluster's folder is given to the postgres user; otherwise it is the user's own.
give_to_postgres() {
  [ "$(id -u)" = 0 ] || return 0
  chown postgres:postgres "$1"
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
  if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
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
  if ! give_to_postgres "$run" 2>/dev/null; then
    postgres_note "cannot give $run to the postgres user"; rm -rf "$run"; return 1
  fi
  if ! as_postgres test -w "$run"; then
    # The checkout is not reachable by the postgres user: use /tmp instead.
    rm -rf "$run"
    run="$(mktemp -d /tmp/tally-test-postgres.XXXXXX)"
    give_to_postgres "$run" 2>/dev/null || true
  fi
  pg_run="$run"
  local pg_data="$run/data"
  if ! as_postgres "$pg_bin/initdb" -D "$pg_data" -A trust -U postgres --no-sync >"$run/initdb.log" 2>&1; then
    postgres_note "initdb failed: $(tail -n 3 "$run/initdb.log" 2>/dev/null)"; stop_postgres; return 1
  fi

  # A Unix-domain socket beside TCP, for the test of connecting through one: in the run's
  # folder when its path is short (the kernel takes 103 bytes with the file's name) and plain
  # (it goes through pg_ctl -o's shell and into a URL unescaped).
  local sock="$run/sock"
  case "$sock" in
    *[!A-Za-z0-9/._-]*) sock="" ;;
  esac
  if [ -n "$sock" ] && [ ${#sock} -le 80 ] && as_postgres mkdir -p "$sock"; then
    :
  else
    echo "PostgreSQL: no Unix-domain socket ($run/sock is long, holds other characters than A-Z a-z 0-9 / . _ -, or could not be made); the test through one is skipped" >&2
    sock=""
  fi
  local port="${TALLY_TEST_POSTGRES_PORT:-55432}" tries=0 log
  while :; do
    until port_is_free "$port"; do
      port=$((port + 1)); tries=$((tries + 1))
      [ $tries -lt 100 ] || { postgres_note "no free port from ${TALLY_TEST_POSTGRES_PORT:-55432}"; stop_postgres; return 1; }
    done
    # TCP on loopback and the socket in the run's folder; durability is off, this server is
    # thrown away after the run.
    log="$run/server-$port.log"
    if as_postgres "$pg_bin/pg_ctl" -D "$pg_data" -l "$log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$sock -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        start >/dev/null 2>&1; then
      break
    fi
    # The port looked free but could not be bound: another run started a server on it at the
    # same moment, or a client's connection uses it (these ports are in the ephemeral range).
    if grep -q "could not create listen socket" "$log" 2>/dev/null && [ $tries -lt 100 ]; then
      port=$((port + 1)); tries=$((tries + 1))
      continue
    fi
    postgres_note "the server did not start: $(tail -n 3 "$log" 2>/dev/null)"; stop_postgres; return 1
  done
  export TALLY_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres"
  echo "PostgreSQL $(basename "$(dirname "$pg_bin")") runs for the tests at $TALLY_TEST_POSTGRES_URL" >&2
  if [ -n "$sock" ]; then
    export TALLY_TEST_POSTGRES_SOCKET_URL="postgres://postgres@/postgres?host=$sock&port=$port"
    echo "and through its socket at $TALLY_TEST_POSTGRES_SOCKET_URL" >&2
  fi
}

if [ -n "${TALLY_TEST_POSTGRES_URL:-}" ]; then
  echo "Using the PostgreSQL server at TALLY_TEST_POSTGRES_URL for the tests." >&2
else
  # A socket URL from outside would name another server than the one started here.
  unset TALLY_TEST_POSTGRES_SOCKET_URL
  trap stop_postgres EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  start_postgres || true
fi

# --- Format ----------------------------------------------------------------------------------

# Every Swift file follows .swift-format (swift-format ships with the toolchain): a change that
# does not fails here, before anything is built;
# `swift format -i -r Package.swift Sources Tests Server/Package.swift Server/Sources Server/Tests`
# fixes it.
if swift format --version >/dev/null 2>&1; then
  format_start=$SECONDS
  swift format lint --strict --recursive Package.swift Sources Tests Server/Package.swift Server/Sources Server/Tests Examples
  echo "format: swift format lint passed in $((SECONDS - format_start)) s" >&2
else
  echo "format: this toolchain has no swift-format; the format check is skipped" >&2
fi

# --- Tests ---------------------------------------------------------------------------------

# Two packages: the client at the root (what apps add) and the server in Server/, each with its
# own build folder. TALLY_TEST_ONLY=client or server runs one of them.
# A target that imports a module it does not declare (beyond its dependencies' own) fails the
# build, so the package manifests stay the true map of who uses what. A warning fails it too. And
# every public type is to say whether it is Sendable: `Sendable`, or
# `@available(*, unavailable) extension T: Sendable {}` where it must not be (swift-certificates'
# `-warnings-as-errors` and `-require-explicit-sendable`; Swift 6.3's driver takes the latter but
# does not pass it on, so it is asked for as its diagnostic group, `-Wwarning ExplicitSendable`).
# That group alone stays a warning, not an error (SwiftPM's generated test runner has two such
# types of its own): a fresh build lists ours beside them, and there should be none.
# They apply to the root package's targets and the local packages (the client package from
# Server/, the examples); SwiftPM drops them for the remote dependencies, which build with their
# warnings suppressed as always. The release build below keeps its own flags and scratch path.
checks=(--explicit-target-dependency-import-check error -Xswiftc -warnings-as-errors -Xswiftc -Wwarning -Xswiftc ExplicitSendable)
# Swift Testing starts every test at once by default; hundreds of tests then hold a database
# open each (1,800 file descriptors at the peak), and Foundation's Process.run(), which the CLI
# tests use, crashes in memcpy when it walks that many descriptors to close them in the child.
# At most this many tests run at a time (also faster on 2 cores: 58 s against 66 s).
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-24}"
# Each long step runs under scripts/watch.py: a step that prints nothing for its limit is taken
# as hung, and ended with the tests it left running, its processes and their threads' backtraces
# (gdb), so that a deadlock fails the run in minutes and says where, not at CI's own limit.
# `watched NAME STALL AGAIN COMMAND...`: AGAIN is how many times a stalled step runs again (the
# test suites: once; never after a failure).
watched() {
  local name="$1" stall="$2" again="$3"
  shift 3
  if command -v python3 >/dev/null; then
    python3 scripts/watch.py --name "$name" --stall "$stall" --again-after-stall "$again" -- "$@"
  else
    "$@"
  fi
}
run_start=$SECONDS
status=0
only="${TALLY_TEST_ONLY:-}"
if [ "$only" != server ]; then
  watched "client package: swift test" 900 1 swift test "${checks[@]}" "$@" || status=$?
  [ $status -eq 0 ] || exit $status
  echo "client package: swift test passed in $((SECONDS - run_start)) s" >&2
  # The Apple-only sources, typechecked against stand-ins of StoreKit, SwiftUI and UIKit, then
  # their availability on each platform's floor (decision 0023: about 140 s of CPU more).
  watched "scripts/check_apple_sources.sh" 900 0 scripts/check_apple_sources.sh .build/debug || exit $?
  # The public API of TallyKit, TallyUI and TallyKitTesting, pinned by Tests/APITesters.
  watched "scripts/check_api.sh" 900 0 scripts/check_api.sh .build/debug || exit $?
fi
if [ "$only" != client ]; then
  server_start=$SECONDS
  watched "server package: swift test" 900 1 swift test --package-path Server "${checks[@]}" "$@" || status=$?
  [ $status -eq 0 ] || exit $status
  echo "server package: swift test passed in $((SECONDS - server_start)) s" >&2
fi

# --- Release build and smoke -----------------------------------------------------------------

# What users deploy is the release `tally`: it must compile (the optimizer can fail where a debug
# build does not) and run. It builds in its own scratch path, so the debug build stays warm.
# TALLY_TEST_RELEASE=0 skips it.
if [ "${TALLY_TEST_RELEASE:-1}" != 0 ] && [ "$only" != client ]; then
  release_start=$SECONDS
  release_scratch="$(pwd)/Server/.build-release"
  # The optimizer compiles a module at once and prints nothing meanwhile: a longer limit.
  watched "release build" 1800 0 swift build --package-path Server -c release --product tally --scratch-path "$release_scratch"
  release_tally="$release_scratch/release/tally"
  echo "release build done in $((SECONDS - release_start)) s; smoke:" >&2
  "$release_tally" --help >/dev/null
  watched "release smoke: bench verify" 600 0 "$release_tally" bench verify --count 2000 --uncached-count 200 --receipts 200 --no-openssl
  # With the self-written backend it is measured against (Flask, SQLite and Apple's Python
  # library, installed into .build-test/baseline-venv from PyPI on the first run).
  mkdir -p .build-test
  smoke_output=".build-test/bench-server-smoke.txt"
  watched "release smoke: bench server" 600 0 "$release_tally" bench server --duration 2 --rounds 1 --warm-up 0.2 --users 20 --purchases 400 --connections 4 --self-written | tee "$smoke_output"
  for endpoint in "POST /v1/me/purchases" "POST /v1/me/spend" "GET /v1/me "; do
    grep -q "^  $endpoint.*/s .*Tally ×" "$smoke_output" || { echo "error: bench server --self-written did not compare $endpoint" >&2; exit 1; }
  done
  echo "release build and smoke passed in $((SECONDS - release_start)) s" >&2
fi

# --- Chaos ---------------------------------------------------------------------------------

# The scratch path and configuration the server package's `swift test` built in, so that the
# probe and chaos run that `tally`.
scratch="Server/.build" configuration="debug" chaos="${TALLY_TEST_CHAOS:-1}" probe="${TALLY_TEST_PROBE:-1}" console="${TALLY_TEST_CONSOLE:-1}"
[ "$only" != client ] || { chaos=0; probe=0; console=0; }
arguments=("$@")
for ((index = 0; index < ${#arguments[@]}; index++)); do
  argument="${arguments[$index]}"
  next="${arguments[$((index + 1))]:-}"
  case "$argument" in
    -c|--configuration) configuration="$next" ;;
    --configuration=*) configuration="${argument#*=}" ;;
    list|--list-tests|-h|--help|--version) chaos=0 probe=0 console=0 ;;  # nothing was tested
  esac
done
case "$scratch" in /*) ;; *) scratch="$(pwd)/$scratch" ;; esac

if [ "$probe" != 0 ]; then
  watched "scripts/api_probe.sh" 900 0 scripts/api_probe.sh --tally "$scratch/$configuration/tally" || exit $?
fi
if [ "$console" != 0 ]; then
  console_start=$SECONDS
  watched "scripts/console_walk.sh" 900 0 scripts/console_walk.sh --tally "$scratch/$configuration/tally" || exit $?
  echo "console walk passed in $((SECONDS - console_start)) s" >&2
fi
if [ "$chaos" = 0 ]; then
  echo "Chaos check skipped." >&2
  exit 0
fi

chaos_arguments=(--quick --tally "$scratch/$configuration/tally")
if [ ! -x "$scratch/$configuration/tally" ]; then
  # `swift test` builds every product, so this is rare (e.g. --skip-build): let chaos build it there.
  chaos_arguments=(--quick --scratch-path "$scratch")
fi
if [ -n "$pg_run" ]; then
  chaos_arguments+=(--postgres "$TALLY_TEST_POSTGRES_URL")
else
  # Only the throwaway server: a server given from outside may not let the check create a database.
  chaos_arguments+=(--sqlite-only)
fi
echo "" >&2
echo "scripts/chaos.sh ${chaos_arguments[*]}" >&2
watched "scripts/chaos.sh" 900 0 scripts/chaos.sh "${chaos_arguments[@]}" || status=$?
echo "scripts/test.sh finished in $((SECONDS - run_start)) s (status $status)" >&2
exit $status
