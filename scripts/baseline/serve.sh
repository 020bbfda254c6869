#!/usr/bin/env bash
# Serves scripts/baseline/backend.py (Flask + SQLite + Apple's app-store-server-library) with
# gunicorn on 127.0.0.1, on a port the kernel picks (gunicorn logs it: "Listening at: …"), as
# `tally bench server --self-written` runs it, with WORKERS threaded workers of 4 threads each
# (the threaded worker keeps connections alive, as Tally's server does). The packages, pinned in
# requirements.txt, go into .build-test/baseline-venv on the first run.
# Usage: BASELINE_DATABASE=… BASELINE_ROOT=… BASELINE_CATALOG=… scripts/baseline/serve.sh WORKERS
set -euo pipefail
workers="${1:?usage: serve.sh WORKERS}"
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/../../.build-test/baseline-venv"
stamp="$venv/requirements.txt"
if ! cmp -s "$here/requirements.txt" "$stamp"; then
  mkdir -p "$(dirname "$venv")"
  if ! python3 -m venv --clear "$venv" >/dev/null 2>&1; then
    # Debian keeps venv apart from python3.
    sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo -n"
    $sudo apt-get install -y -qq python3-venv >/dev/null 2>&1 || true
    python3 -m venv --clear "$venv" >&2 || { echo "error: python3 -m venv failed (apt-get install python3-venv)." >&2; exit 1; }
  fi
  echo "Installing $here/requirements.txt into $venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" >&2
  cp "$here/requirements.txt" "$stamp"
fi
# The schema, once, before the workers start.
(cd "$here" && "$venv/bin/python" -c 'import backend')
# The backend ends with the process that started it, even when that one is killed.
parent=$PPID
(while kill -0 "$parent" 2>/dev/null && kill -0 $$ 2>/dev/null; do sleep 1; done; kill -0 "$parent" 2>/dev/null || kill -TERM $$ 2>/dev/null) &
exec "$venv/bin/gunicorn" --chdir "$here" --bind 127.0.0.1:0 --workers "$workers" \
  --worker-class gthread --threads 4 --keep-alive 30 --log-level info backend:app
