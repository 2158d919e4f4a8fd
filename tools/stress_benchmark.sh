#!/usr/bin/env bash
# tools/stress_benchmark.sh: what ThreadSanitizer costs the stress driver.
#
#   tools/stress_benchmark.sh [--ops_per_thread=N] [--repeats=R] [--seed=S]
#
# Builds //stress:stress_main three ways and runs the SAME fixed workload
# (same seed, 4 threads + the receive interrupt, same ops, every check on)
# with each, in R rounds (each build once per round, the order rotated every
# round), through tools/ratios/ratios.py: the median ops/s of each build and
# the TSan slowdown (the other build's ops/s / the TSan build's, median over
# the rounds of each round's ratio), PASS/FAIL against the 10x goal:
#   default  the default config (fastbuild: -O0), as `bazel test //...` builds it
#   o1       the default config at the TSan build's optimisation (-O1 -g,
#            own output directory): the like-for-like baseline
#   tsan     --config=tsan (-O1 -g -fsanitize=thread)
# The gate is tsan vs o1 (same compiler flags but the sanitizer); tsan vs
# default is printed too. Wall-clock ops/s on a shared machine: run it on a
# quiet one, and compare ratios, not absolute numbers.
# Exit status: 0 within the goal, 1 over it, 2 a build or a run failed.
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
    echo "stress_benchmark: the $v build failed (log above)"
    exit 2
  fi
  # shellcheck disable=SC2086
  bin[$v]="$(bazel info ${flags[$v]} bazel-bin 2>/dev/null)/stress/stress_main"
done

workload="--seed=$seed --threads=4 --ops_per_thread=$ops --progress_every=0"
echo "=== workload: $workload (default mix: 2 QPs/thread, rcv-irq, 2 workers, yield p=0.05), $repeats round(s)"
variants=()
for v in default o1 tsan; do
  variants+=(--variant "$v=${bin[$v]} $workload --json_out={json}")
done
exec python3 tools/ratios/ratios.py \
  --title="stress_main, same workload per build, wall-clock ops/s" \
  --rounds="$repeats" --higher_is_better \
  --ratio tsan o1 --ratio tsan default \
  --goal "TSan slowdown (tsan vs -O1 baseline)" 10 '^tsan vs o1$' \
  commands --json_key=ops_per_second "${variants[@]}"
