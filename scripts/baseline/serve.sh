#!/usr/bin/env bash
# Serves scripts/baseline/backend.py (Flask + SQLite + Apple's app-store-server-library) with
# gunicorn on 127.0.0.1:PORT, as `tally bench server --self-written` runs it. The packages go
# into .build-test/baseline-venv on the first run (pinned below). Workers: gunicorn's advice,
# 2 × cores + 1; its threaded worker, so that connections are kept alive as Tally's are.
# Usage: BASELINE_DATABASE=… BASELINE_ROOT=… BASELINE_CATALOG=… scripts/baseline/serve.sh PORT
set -euo pipefail
port="${1:?usage: serve.sh PORT}"
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/../../.build-test/baseline-venv"
packages=(flask==3.1.3 gunicorn==23.0.0 app-store-server-library==3.1.2)
if ! "$venv/bin/python" -c 'import flask, gunicorn, appstoreserverlibrary' >/dev/null 2>&1; then
  mkdir -p "$(dirname "$venv")"
  if ! python3 -m venv --clear "$venv" >/dev/null 2>&1; then
    # Debian keeps venv apart from python3.
    sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get install -y -qq python3-venv >/dev/null 2>&1 || true
    python3 -m venv --clear "$venv" >&2 || { echo "error: python3 -m venv failed (apt-get install python3-venv)." >&2; exit 1; }
  fi
  echo "Installing ${packages[*]} into $venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${packages[@]}" >&2
fi
workers=$((2 * $(nproc) + 1))
exec "$venv/bin/gunicorn" --chdir "$here" --bind "127.0.0.1:$port" --workers "$workers" \
  --worker-class gthread --threads 4 --keep-alive 30 --log-level warning backend:app
