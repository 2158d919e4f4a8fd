#!/usr/bin/env bash
# tools/stress_benchmark.sh: what ThreadSanitizer costs the stress driver.
#
#   tools/stress_benchmark.sh [--ops_per_thread=N] [--repeats=R] [--seed=S]
#
# Builds //stress:stress_main three ways and runs the SAME fixed workload
# (same seed, 4 threads + the receive interrupt, same ops, every check on)
# with each, R times alternating, then prints the median ops/s of each and the
# slowdown ratios, PASS/FAIL against the 10x goal:
#   default  the default config (fastbuild: -O0), as `bazel test //...` builds it
#   o1       the default config at the TSan build's optimisation (-O1 -g,
#            own output directory): the like-for-like baseline
#   tsan     --config=tsan (-O1 -g -fsanitize=thread)
# The gate is tsan vs o1 (same compiler flags but the sanitizer); tsan vs
# default is printed too. Wall-clock ops/s on a shared machine: run it on a
# quiet one, and compare ratios, not absolute numbers.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ops=20000
repeats=3
seed=424242
for arg in "$@"; do
  case "$arg" in
    --ops_per_thread=*) ops="${arg#*=}" ;;
    --repeats=*) repeats="${arg#*=}" ;;
    --seed=*) seed="${arg#*=}" ;;
    *) echo "usage: $0 [--ops_per_thread=N] [--repeats=R] [--seed=S]" >&2; exit 2 ;;
  esac
done

declare -A flags=(
  [default]=""
  [o1]="--copt=-O1 --copt=-g --strip=never --platform_suffix=-o1"
  [tsan]="--config=tsan"
)
declare -A bin
for v in default o1 tsan; do
  echo "=== building //stress:stress_main ($v)"
  # shellcheck disable=SC2086
  if ! log=$(bazel build ${flags[$v]} //stress:stress_main 2>&1); then
    echo "$log" | tail -40
    exit 1
  fi
  # shellcheck disable=SC2086
  bin[$v]="$(bazel info ${flags[$v]} bazel-bin 2>/dev/null)/stress/stress_main"
done

workload=(--seed="$seed" --threads=4 --ops_per_thread="$ops" --progress_every=0)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "=== workload: ${workload[*]} (default mix: 2 QPs/thread, rcv-irq, 2 workers, yield p=0.05), $repeats run(s) each"
for r in $(seq 1 "$repeats"); do
  for v in default o1 tsan; do
    "${bin[$v]}" "${workload[@]}" --json_out="$out/$v.$r.json" > "$out/$v.$r.log" 2>&1 || {
      echo "FAIL: the $v run $r failed:"; tail -20 "$out/$v.$r.log"; exit 1; }
    echo "  run $r $v: $(grep -o '[0-9.]* s, [0-9]* ops ([0-9]* ops/s)' "$out/$v.$r.log")"
  done
done

python3 - "$out" "$repeats" <<'PY'
import json, statistics, sys
out, repeats = sys.argv[1], int(sys.argv[2])
med = {}
for v in ("default", "o1", "tsan"):
    rates = [json.load(open(f"{out}/{v}.{r}.json"))["ops_per_second"] for r in range(1, repeats + 1)]
    med[v] = statistics.median(rates)
print()
print("| build | ops/s (median) | TSan slowdown |")
print("|---|---|---|")
print(f"| default config (-O0) | {med['default']:.0f} | {med['default'] / med['tsan']:.2f}x |")
print(f"| default flags at -O1 -g | {med['o1']:.0f} | {med['o1'] / med['tsan']:.2f}x |")
print(f"| --config=tsan | {med['tsan']:.0f} | 1.00x |")
ratio = med["o1"] / med["tsan"]
verdict = "PASS" if ratio <= 10 else "FAIL"
print(f"\nTSan slowdown (tsan vs -O1 baseline): {ratio:.2f}x, goal <= 10x: {verdict}")
sys.exit(0 if verdict == "PASS" else 1)
PY
