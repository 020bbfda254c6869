#!/usr/bin/env bash
# `tally verify --jsonl` measured as a user runs it: the whole process (start, read, verify,
# write, exit) on N distinct valid JWS, against `openssl speed ecdsap256` and Apple's Python
# library on the same JWS, in the same run. See docs/benchmarks.md.
#
#   scripts/bench_verify_cli.sh                   # 20,000 JWS, 3 rounds, builds the release tally
#   scripts/bench_verify_cli.sh --count 5000 --rounds 1 --tally Server/.build-release/release/tally
#
# Each round runs, one after the other: `openssl speed -elapsed ecdsap256` (one core), the
# command pinned to one core (`taskset -c 0`, `--jobs 1`), and the command on every core
# (`--jobs N`, N = nproc). All rates are per second of wall-clock time (openssl's `-elapsed`;
# without it openssl counts CPU time, which a busy machine does not slow down); the one-core run
# also shows its rate per CPU second (user + system). Each run's output must be N lines, all
# valid, and the same bytes in both modes.
set -euo pipefail
cd "$(dirname "$0")/.."

count=20000 rounds=3 python_count=2000 tally="${TALLY_BIN:-}" keep=0 python=1
usage() {
  cat <<'EOF'
usage: scripts/bench_verify_cli.sh [options]

  --count N          distinct JWS verified by each run (default 20000)
  --rounds N         rounds of openssl, one core, every core (default 3)
  --python-count N   how many of the JWS Apple's Python library verifies (default 2000)
  --no-python        skip the Python baseline
  --tally PATH       this tally executable (or TALLY_BIN); default: build the release one in Server/.build-release
  --keep             keep the folder with the JWS and the outputs
EOF
}
while [ $# -gt 0 ]; do
  case "$1" in
    --count) count="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --python-count) python_count="$2"; shift ;;
    --no-python) python=0 ;;
    --tally) tally="$2"; shift ;;
    --keep) keep=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
for number in "$count" "$rounds" "$python_count"; do
  [[ "$number" =~ ^[1-9][0-9]*$ ]] || { echo "bench: $number is not a positive number" >&2; exit 2; }
done
command -v openssl >/dev/null || { echo "bench: openssl is required (the baseline)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is required (apt-get install time)" >&2; exit 2; }

if [ -z "$tally" ]; then
  echo "bench: swift build --package-path Server -c release --product tally --scratch-path Server/.build-release" >&2
  swift build --package-path Server -c release --product tally --scratch-path Server/.build-release --quiet >&2
  tally="$(swift build --package-path Server -c release --product tally --scratch-path Server/.build-release --show-bin-path)/tally"
fi
[ -x "$tally" ] || { echo "bench: $tally is not an executable" >&2; exit 2; }

work="$(mktemp -d "${TMPDIR:-/tmp}/tally-bench-cli.XXXXXX")"
cleanup() { if [ $keep -eq 1 ]; then echo "bench: kept $work" >&2; else rm -rf "$work"; fi; }
trap cleanup EXIT

cores="$(nproc)"
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)

# The JWS: distinct sandbox transactions signed by a test chain minted for the run.
"$tally" bench verify --count "$count" --uncached-count 1 --no-openssl --emit "$work" > "$work/emit.log"
lines="$(wc -l < "$work/jws.txt")"
[ "$lines" -eq "$count" ] || { echo "bench: $work/jws.txt has $lines lines, expected $count" >&2; exit 1; }
arguments=(verify --kind transaction --root "$work/root.der" --environment Sandbox --bundle-id com.example --jsonl "$work/jws.txt")

median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN { printf f, a / b }'; }

# One whole run of the command: prints "wall-clock rate CPU rate" and checks its output.
run_cli() {
  local name="$1"; shift
  /usr/bin/time -f "%e %U %S" -o "$work/$name.time" "$@" > "$work/$name.out"
  local valid
  valid="$(grep -c '^{"status":"valid"' "$work/$name.out" || true)"
  [ "$valid" -eq "$count" ] || { echo "bench: $name printed $valid valid verdicts of $count" >&2; exit 1; }
  awk -v n="$count" '{ printf "%.0f %.0f", n / $1, n / ($2 + $3) }' "$work/$name.time"
}

openssl_rates=() one_rates=() all_rates=()
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $cores cores, $(uname -sr)"
echo "tally: $tally"
echo "in-process, same JWS (tally bench verify):"
sed -n 's/^/  /; 3,4p' "$work/emit.log"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %18s %34s %22s\n' round "openssl verify/s" "tally 1 core /s (per CPU s)" "tally $cores cores /s"
for round in $(seq 1 "$rounds"); do
  line="$(openssl speed -elapsed -seconds 3 ecdsap256 2>/dev/null | grep nistp256 | tail -n 1)"
  openssl_rate="$(awk '{ print $NF }' <<< "$line" | cut -d. -f1)"
  read -r one one_cpu <<< "$(run_cli one "${pin[@]}" "$tally" "${arguments[@]}" --jobs 1)"
  read -r all _ <<< "$(run_cli all "$tally" "${arguments[@]}" --jobs "$cores")"
  cmp -s "$work/one.out" "$work/all.out" || { echo "bench: --jobs 1 and --jobs $cores printed different bytes" >&2; exit 1; }
  openssl_rates+=("$openssl_rate") one_rates+=("$one") all_rates+=("$all")
  printf '%-6s %18s %34s %22s\n' "$round" "$openssl_rate" "$one ($(ratio "$one" "$openssl_rate")x) ($one_cpu)" "$all ($(ratio "$all" "$openssl_rate")x)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

o="$(median "${openssl_rates[@]}")" a="$(median "${one_rates[@]}")" b="$(median "${all_rates[@]}")"
echo "median: openssl $o/s; tally --jsonl on 1 core $a/s ($(ratio "$a" "$o")x openssl), on $cores cores $b/s ($(ratio "$b" "$o")x openssl)"

if [ $python -eq 1 ]; then
  head -n "$python_count" "$work/jws.txt" > "$work/python.txt"
  mkdir -p "$work/python"
  cp "$work/root.der" "$work/python/root.der"
  mv "$work/python.txt" "$work/python/jws.txt"
  if output="$(python3 scripts/bench_python_verify.py "$work/python" 2>&1)"; then
    p="$(sed -n 's/^verifications_per_second=//p' <<< "$output")"
    echo "Apple app-store-server-library (Python, $python_count JWS, in-process, start-up excluded): $p/s;" \
         "tally --jsonl on 1 core = $(ratio "$a" "$p" %.1f)x, on $cores cores = $(ratio "$b" "$p" %.1f)x"
  else
    echo "Apple app-store-server-library (Python): not measured: $(tail -n 2 <<< "$output" | tr '\n' ' ')"
  fi
fi
