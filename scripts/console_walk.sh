#!/usr/bin/env bash
# Walks the web console (/console of `tally serve`) in a real headless Chromium, as an operator
# would: sign-in, every page, filters, paging, CSV exports, the metrics of the seeded purchases
# (English and Ukrainian, a count's link, the revenue CSV), a credit adjustment checked against
# the public API, CSRF and bad-input refusals, Ukrainian, the audit log, a read-only operator
# and the secret-key sign-in, the lists' layout at 1,280 and 1,400 px, and a second server on
# IPv6 ([::1]) signed in to, adjusted through and exported from (scripts/console/walk.py says
# what each step checks).
#
#   scripts/console_walk.sh [--tally PATH]
#
# PATH defaults to Server/.build/debug/tally. The server gets a throwaway SQLite database, a
# test certificate authority (`tally appstore purchase --ca-dir`) that it trusts with --dev,
# and two operators: alice (admin) and bob (read-only). The walk seeds users and purchases
# through the public API first. Chromium and chromedriver come from Debian (apt-get install
# chromium chromium-driver), Selenium from PyPI into .build-test/console-venv; both are
# installed on the first run. Screenshots go to .build-test/console/ (failure.png and
# failure.html there when a step fails). Under two minutes on 2 cores.
# TALLY_TEST_CONSOLE=0 skips it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${TALLY_TEST_CONSOLE:-1}" = 0 ]; then
  echo "Console walk skipped (TALLY_TEST_CONSOLE=0)." >&2
  exit 0
fi

# Pinned so that a run means the same thing tomorrow (4.52.0 needs a certifi newer than PyPI serves here).
selenium_version="4.51.0"
tally="Server/.build/debug/tally"
while [ $# -gt 0 ]; do
  case "$1" in
    --tally) tally="$2"; shift 2 ;;
    *) echo "usage: scripts/console_walk.sh [--tally PATH]" >&2; exit 2 ;;
  esac
done
if [ ! -x "$tally" ]; then
  echo "error: no tally binary at $tally; run swift build --package-path Server (or scripts/test.sh) first, or pass --tally PATH." >&2
  exit 1
fi
case "$tally" in /*) ;; *) tally="$(pwd)/$tally" ;; esac

sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"

# --- Chromium and chromedriver, from Debian ---------------------------------------------------

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  echo "Installing chromium and chromium-driver (apt-get)" >&2
  if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1; then
    $sudo apt-get update -qq >/dev/null 2>&1 || true
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null ||
      { echo "error: apt-get install chromium chromium-driver failed." >&2; exit 1; }
  fi
fi

# --- Selenium, in a virtual environment of its own --------------------------------------------

venv="$(pwd)/.build-test/console-venv"
if [ ! -x "$venv/bin/python" ] ||
   [ "$("$venv/bin/python" -c 'import selenium; print(selenium.__version__)' 2>/dev/null)" != "$selenium_version" ]; then
  mkdir -p .build-test
  if ! python3 -m venv --clear "$venv" >/dev/null 2>&1; then
    # Debian keeps venv apart from python3.
    $sudo apt-get install -y -qq python3-venv >/dev/null 2>&1 || true
    python3 -m venv --clear "$venv" || { echo "error: python3 -m venv failed (apt-get install python3-venv)." >&2; exit 1; }
  fi
  echo "Installing selenium $selenium_version into $venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "selenium==$selenium_version" ||
    { echo "error: pip install selenium==$selenium_version failed." >&2; exit 1; }
fi

# --- a real server -----------------------------------------------------------------------------

work="$(mktemp -d /tmp/tally-console.XXXXXX)"
shots="$(pwd)/.build-test/console"
mkdir -p "$shots"
server_pid=""
server6_pid=""
served_pid=""
cleanup() {
  for pid in "$server_pid" "$server6_pid" "$served_pid"; do
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$work"
}
trap cleanup EXIT

# The test certificate authority (made on first use) that the server trusts with --dev.
"$tally" appstore purchase --ca-dir "$work/ca" --product com.tally.photo.credits.50 >/dev/null ||
  { echo "error: tally appstore purchase could not make the test certificate authority." >&2; exit 1; }

secret="sk_test_console_walk_0123456789"
alice_password="alice-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
bob_password="bob-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
add_operator() { # name role password [database]
  if ! printf '%s\n' "$3" | "$tally" console operator add --database "${4:-$work/tally.sqlite}" --name "$1" --role "$2" \
      >"$work/operator-$1.log" 2>&1; then
    echo "error: tally console operator add --name $1 --role $2 failed:" >&2
    cat "$work/operator-$1.log" >&2
    exit 1
  fi
}
add_operator alice admin "$alice_password"
add_operator bob read-only "$bob_password"

# serve HOST DATABASE LOG: starts `tally serve` on HOST, port chosen by the system; sets served_pid
# and served_port once it answers /healthz.
serve() {
  TALLY_SECRET_KEY="$secret" LOG_LEVEL=info "$tally" serve --dev --trust-ca-dir "$work/ca" --database "$2" \
    --host "$1" --port 0 >"$3" 2>&1 &
  served_pid=$!
  served_port=""
  for _ in $(seq 1 300); do
    served_port="$(sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\).*/\1/p' "$3" | head -n 1)"
    [ -n "$served_port" ] && break
    kill -0 "$served_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$served_port" ]; then
    echo "error: tally serve --host $1 did not start:" >&2
    cat "$3" >&2
    exit 1
  fi
  local url="http://$1:$served_port"
  case "$1" in *:*) url="http://[$1]:$served_port" ;; esac
  for _ in $(seq 1 100); do
    if python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + "/healthz", timeout=2)' "$url" 2>/dev/null; then
      return 0
    fi
    sleep 0.1
  done
  echo "error: GET $url/healthz did not answer 200:" >&2
  tail -n 30 "$3" >&2
  exit 1
}

serve 127.0.0.1 "$work/tally.sqlite" "$work/server.log"
server_pid=$served_pid
base="http://127.0.0.1:$served_port"

# The same console served on IPv6 ([::1]), with its own database and the same operators: the
# browser writes its Host and Origin as [::1]:PORT. Skipped on a machine without IPv6 loopback.
base6=""
if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
  add_operator alice admin "$alice_password" "$work/tally6.sqlite"
  serve ::1 "$work/tally6.sqlite" "$work/server6.log"
  server6_pid=$served_pid
  base6="http://[::1]:$served_port"
else
  echo "No IPv6 loopback (::1): the walk's IPv6 step is skipped." >&2
fi

# --- the walk ----------------------------------------------------------------------------------

echo "Console walk against $base" >&2
status=0
"$venv/bin/python" scripts/console/walk.py --base "$base" --tally "$tally" --ca-dir "$work/ca" --secret "$secret" \
  --alice "$alice_password" --bob "$bob_password" --out "$shots" --work "$work" --base6 "$base6" || status=$?

if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "error: tally serve exited during the walk:" >&2
  tail -n 50 "$work/server.log" >&2
  [ $status -ne 0 ] || status=1
elif grep -q "request answered 5" "$work/server.log" "$work"/server6.log 2>/dev/null; then
  echo "error: the server answered 5xx during the walk:" >&2
  grep -h "request answered 5\|request failed" "$work/server.log" "$work"/server6.log 2>/dev/null | head -n 20 >&2
  [ $status -ne 0 ] || status=1
fi
if [ -n "$server6_pid" ] && ! kill -0 "$server6_pid" 2>/dev/null; then
  echo "error: tally serve --host ::1 exited during the walk:" >&2
  tail -n 50 "$work/server6.log" >&2
  [ $status -ne 0 ] || status=1
fi
if [ $status -ne 0 ]; then
  echo "Server log (last 30 lines):" >&2
  tail -n 30 "$work/server.log" >&2
  echo "Console walk failed; screenshots in $shots" >&2
else
  echo "Console walk passed; screenshots in $shots" >&2
fi
exit $status
