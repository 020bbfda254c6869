#!/usr/bin/env bash
# Runs every test of the package on a fresh Linux machine: installs and starts what the
# tests need, then `swift test`. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests need, installed when missing.
packages=()
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

vectors="${TALLY_VECTORS:-../shared/vectors}"
if [ ! -d "$vectors" ]; then
  echo "note: $vectors is absent: the conformance tests on Apple's vectors and real App Store data will be skipped." >&2
fi

exec swift test "$@"
