#!/usr/bin/env bash
# Crash safety of `tally serve`: posts thousands of purchases and spends (with duplicates)
# while the server is SIGKILLed and restarted, then checks that every balance and ledger
# equals what the accepted requests imply; and that a webhook receiver that verifies every
# request (the standardwebhooks package) and misbehaves got every event exactly once. On SQLite,
# then on PostgreSQL when a server is given. See docs/chaos.md.
#
#   scripts/chaos.sh                      # SQLite (and PostgreSQL if TALLY_CHAOS_POSTGRES_URL or
#                                         # TALLY_TEST_POSTGRES_URL is set)
#   scripts/chaos.sh --quick              # a shorter run for CI (about 50 s per backend, debug build; most of it
#                                         # waiting for a killed server's webhook claims to lapse, docs/chaos.md)
#   scripts/chaos.sh --postgres postgres://postgres@127.0.0.1:5432/postgres
#
# Exit status: 0 when every check passes on every backend run, 1 when a check fails, 2 for a
# usage or set-up error.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

usage() {
  cat <<'EOF'
usage: scripts/chaos.sh [options] [-- driver options]

  --quick               a shorter run for CI: 12 users, 500 purchases, 500 spends, 3 kills
  --users N             users who buy and spend (default 20)
  --purchases N         signed transactions bought, each posted one or more times (default 2000)
  --spends N            spend idempotency keys, some posted more than once (default 2000)
  --kills N             SIGKILLs of the server during the load (default 5; one more follows it)
  --workers N           concurrent client threads (default 8)
  --seed N              the random seed (printed by every run)
  --tally PATH          use this tally executable instead of building one (or TALLY_BIN)
  --scratch-path DIR    passed to `swift build` when building
  --postgres URL        also run on PostgreSQL (or TALLY_CHAOS_POSTGRES_URL, TALLY_TEST_POSTGRES_URL);
                        a fresh database tally_chaos_<pid> is created on that server with psql
                        and dropped afterwards
  --sqlite-only         skip PostgreSQL even when a URL is set in the environment
  --postgres-only       skip SQLite
  --keep                keep the temporary folder (logs, SQLite file) and the PostgreSQL database
  -h, --help            this help

Anything after `--` goes to the driver (python3 scripts/chaos/driver.py --help), e.g.
`-- --no-webhooks`. The driver runs with .build-test/webhooks-venv/bin/python, a virtual
environment holding standardwebhooks (made on the first run).
EOF
}

users=20 purchases=2000 spends=2000 kills=5 workers=8 seed=""
tally="${TALLY_BIN:-}" scratch="" keep=0 run_sqlite=1 run_postgres=1
postgres_url="${TALLY_CHAOS_POSTGRES_URL:-${TALLY_TEST_POSTGRES_URL:-}}"
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --users|--purchases|--spends|--kills|--workers|--seed|--tally|--scratch-path|--postgres)
      [ $# -ge 2 ] || { echo "chaos: $1 needs a value" >&2; exit 2; } ;;
  esac
  case "$1" in
    --quick) users=12; purchases=500; spends=500; kills=3 ;;
    --users) users="$2"; shift ;;
    --purchases) purchases="$2"; shift ;;
    --spends) spends="$2"; shift ;;
    --kills) kills="$2"; shift ;;
    --workers) workers="$2"; shift ;;
    --seed) seed="$2"; shift ;;
    --tally) tally="$2"; shift ;;
    --scratch-path) scratch="$2"; shift ;;
    --postgres) postgres_url="$2"; shift ;;
    --sqlite-only) run_postgres=0 ;;
    --postgres-only) run_sqlite=0 ;;
    --keep) keep=1 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "chaos: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
for number in "$users" "$purchases" "$spends" "$kills" "$workers"; do
  [[ "$number" =~ ^[0-9]+$ ]] || { echo "chaos: $number is not a number" >&2; exit 2; }
done
[ -n "$seed" ] || seed=$((RANDOM * 32768 + RANDOM))
command -v python3 >/dev/null || { echo "chaos: python3 is required" >&2; exit 2; }

# PostgreSQL is checked before anything is built or run.
if [ $run_postgres -eq 1 ] && [ -n "$postgres_url" ]; then
  host="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.urlsplit(sys.argv[1]).hostname or "")' "$postgres_url")"
  case "$host" in
    127.0.0.1|localhost|::1) ;;
    *) echo "chaos: the PostgreSQL server must be on loopback (127.0.0.1, localhost or ::1), not '$host'" >&2; exit 2 ;;
  esac
  command -v psql >/dev/null || { echo "chaos: psql is required to create the PostgreSQL database" >&2; exit 2; }
elif [ $run_sqlite -eq 0 ]; then
  echo "chaos: --postgres-only needs --postgres URL, TALLY_CHAOS_POSTGRES_URL or TALLY_TEST_POSTGRES_URL" >&2; exit 2
fi

# --- standardwebhooks, in a virtual environment of its own --------------------------------------

# Pinned so that a run means the same thing tomorrow. The webhook receiver verifies with it.
standardwebhooks_version="1.1.0"
venv="$repo/.build-test/webhooks-venv"
webhooks=1
for argument in ${extra[@]+"${extra[@]}"}; do [ "$argument" != "--no-webhooks" ] || webhooks=0; done
if [ $webhooks -eq 0 ]; then
  python=python3
elif [ ! -x "$venv/bin/python" ] ||
   [ "$("$venv/bin/python" -c 'import standardwebhooks; print(standardwebhooks.__version__)' 2>/dev/null)" != "$standardwebhooks_version" ]; then
  mkdir -p "$repo/.build-test"
  if ! python3 -m venv --clear "$venv" >/dev/null 2>&1; then
    # Debian keeps venv apart from python3.
    sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get install -y -qq python3-venv >/dev/null 2>&1 || true
    python3 -m venv --clear "$venv" ||
      { echo "chaos: python3 -m venv failed; the venv module is missing (apt-get install python3-venv)" >&2; exit 2; }
  fi
  echo "chaos: installing standardwebhooks $standardwebhooks_version into $venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "standardwebhooks==$standardwebhooks_version" >&2 ||
    { echo "chaos: pip install standardwebhooks==$standardwebhooks_version failed" >&2; exit 2; }
fi
if [ $webhooks -eq 1 ]; then
  python="$venv/bin/python"
  # The receiver checks itself first (verification, a bad signature, dedupe, misbehaviour): about 2 s.
  "$python" scripts/chaos/webhook_receiver.py --self-test >&2 ||
    { echo "chaos: the webhook receiver's self-test failed (scripts/chaos/webhook_receiver.py --self-test)" >&2; exit 2; }
fi

# --- the tally executable -------------------------------------------------------------------

if [ -z "$tally" ]; then
  build=(swift build --package-path Server --product tally)
  [ -z "$scratch" ] || build+=(--scratch-path "$scratch")
  echo "chaos: ${build[*]}" >&2
  "${build[@]}" --quiet >&2
  tally="$("${build[@]}" --show-bin-path)/tally"
fi
[ -x "$tally" ] || { echo "chaos: $tally is not an executable" >&2; exit 2; }

# --- a temporary folder --------------------------------------------------------------------

# The driver runs the simulated App Store (tally appstore serve) and tally serve itself, in
# this folder: one certificate authority (ca/) for both backends, one folder per backend.
work="$(mktemp -d "${TMPDIR:-/tmp}/tally-chaos.XXXXXX")"
database_created=""
postgres_admin_url=""
status=0

cleanup() {
  if [ -n "$database_created" ] && [ $keep -eq 0 ]; then
    psql "$postgres_admin_url" -v ON_ERROR_STOP=1 -q -c "DROP DATABASE IF EXISTS $database_created WITH (FORCE)" >/dev/null 2>&1 \
      || echo "chaos: could not drop the database $database_created" >&2
  fi
  if [ $keep -eq 1 ] || [ $status -ne 0 ]; then
    echo "chaos: logs and data kept in $work" >&2
  else
    rm -rf "$work"
  fi
}
driver_pid=""
interrupted() {
  status=$1
  # The driver stops its servers and stores when it gets SIGTERM.
  [ -z "$driver_pid" ] || { kill -TERM "$driver_pid" 2>/dev/null; wait "$driver_pid" 2>/dev/null; }
  exit "$status"
}
trap cleanup EXIT
trap 'interrupted 130' INT
trap 'interrupted 143' TERM

driver() {
  local backend="$1" database="$2"
  mkdir -p "$work/$backend"
  local code=0
  "$python" scripts/chaos/driver.py --tally "$tally" --backend "$backend" --database "$database" \
    --ca-dir "$work/ca" --work-dir "$work/$backend" --repo "$repo" \
    --users "$users" --purchases "$purchases" --spends "$spends" --kills "$kills" --workers "$workers" --seed "$seed" \
    ${extra[@]+"${extra[@]}"} &
  driver_pid=$!
  wait "$driver_pid" || code=$?
  driver_pid=""
  return $code
}

results=()
record() {
  local backend="$1" code="$2"
  case "$code" in
    0) results+=("$backend: PASS") ;;
    1) results+=("$backend: FAIL"); [ $status -ne 0 ] || status=1 ;;
    *) results+=("$backend: ERROR ($code)"); status=2 ;;
  esac
}

if [ $run_sqlite -eq 1 ]; then
  code=0; driver sqlite "$work/sqlite/tally.sqlite" || code=$?
  record sqlite $code
fi

# --- PostgreSQL: a fresh database on the given server ----------------------------------------

if [ $run_postgres -eq 1 ] && [ -n "$postgres_url" ]; then
  postgres_admin_url="$postgres_url"
  name="tally_chaos_$$"
  if ! psql "$postgres_admin_url" -v ON_ERROR_STOP=1 -q -c "CREATE DATABASE $name" >"$work/createdb.log" 2>&1; then
    echo "chaos: could not create the database $name on $host: $(cat "$work/createdb.log")" >&2
    record postgres 2
  else
    database_created="$name"
    database_url="$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$postgres_url" "$name")"
    echo "chaos: PostgreSQL database $name" >&2
    code=0; driver postgres "$database_url" || code=$?
    record postgres $code
  fi
elif [ $run_postgres -eq 0 ]; then
  echo "chaos: PostgreSQL skipped (--sqlite-only)" >&2
else
  echo "chaos: PostgreSQL skipped (give --postgres URL or set TALLY_CHAOS_POSTGRES_URL / TALLY_TEST_POSTGRES_URL)" >&2
fi

echo
echo "chaos (seed $seed): ${results[*]:-nothing ran}"
exit $status
