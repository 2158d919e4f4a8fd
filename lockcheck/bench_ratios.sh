#!/usr/bin/env bash
# lockcheck/bench_ratios.sh [REPETITIONS]: issue 3's speed goals, from ONE run
# of //lockcheck:spinlock_benchmark under --config=bench (optimised).
#   checks off / plain std::atomic spinlock   goal <= 1.2x
#   checks on  / plain std::atomic spinlock   goal <= 3x
# Every variant of a group must meet its goal (spin_lock, spin_lock_irqsave,
# and for checks on also the inner lock under a held one). Uses the median CPU
# time of REPETITIONS (default 10) randomly interleaved repetitions, so drift
# on a busy machine hits all variants alike. Exits 1 if a goal is missed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
reps="${1:-10}"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! csv="$(bazel run --config=bench //lockcheck:spinlock_benchmark -- \
    --benchmark_format=csv --benchmark_repetitions="$reps" \
    --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 2>"$log")"; then
  cat "$log"
  echo "bench_ratios: the benchmark did not build or run (log above)"
  exit 2
fi

awk -F, -v reps="$reps" '
  $1 ~ /_median"?$/ {
    name = $1; gsub(/"/, "", name); sub(/_median$/, "", name)
    t[name] = $4
  }
  END {
    base = t["BM_PlainAtomicSpinLock"]
    if (base == "" || base <= 0) { print "bench_ratios: no baseline in the benchmark output"; exit 2 }
    printf "lockcheck spinlock benchmark: median CPU time of %d interleaved repetitions, --config=bench\n", reps
    n = split("BM_PlainAtomicSpinLock BM_ChecksOff_SpinLock BM_ChecksOff_SpinLockIrqsave " \
              "BM_ChecksOn_SpinLock BM_ChecksOn_SpinLockIrqsave BM_ChecksOn_SpinLockUnderAnother", order, " ")
    for (i = 1; i <= n; ++i) {
      name = order[i]
      if (t[name] == "") { printf "bench_ratios: %s missing from the benchmark output\n", name; exit 2 }
      r = t[name] / base
      printf "  %-36s %7.2f ns  %5.2fx\n", name, t[name], r
      if (name ~ /^BM_ChecksOff_/) { if (r > off_worst) off_worst = r }
      if (name ~ /^BM_ChecksOn_/)  { if (r > on_worst) on_worst = r }
    }
    off = t["BM_ChecksOff_SpinLock"] / base; on = t["BM_ChecksOn_SpinLock"] / base
    off_ok = off_worst <= 1.2; on_ok = on_worst <= 3.0
    printf "checks off / plain: %.2fx (worst variant %.2fx), goal <= 1.2x: %s\n", off, off_worst, off_ok ? "PASS" : "FAIL"
    printf "checks on  / plain: %.2fx (worst variant %.2fx), goal <= 3x:   %s\n", on, on_worst, on_ok ? "PASS" : "FAIL"
    exit (off_ok && on_ok) ? 0 : 1
  }' <<<"$csv"
