#!/usr/bin/env bash
# lockcheck/bench_ratios.sh [ROUNDS]: lockcheck's speed goals, as same-run
# ratios of //lockcheck:spinlock_benchmark (--config=bench, optimised), each
# variant's uncontended lock + unlock against a plain std::atomic spinlock:
#   checks off / plain   goal <= 1.2x  (spin_lock, spin_lock_irqsave)
#   checks on  / plain   goal <= 3x    (the same, and the inner lock of a pair)
# Every variant of a group must meet its goal. tools/ratios/ratios.py runs the
# binary ROUNDS times (default 15), every benchmark 3 times per round in random
# interleaved order, and takes the median over the rounds of each round's
# ratio, so a busy machine slows a variant and its baseline alike.
# Exit status: 0 both goals met, 1 a goal missed, 2 could not build or run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rounds="${1:-15}"

if ! log="$(bazel build --config=bench //lockcheck:spinlock_benchmark 2>&1)"; then
  echo "$log" | tail -40
  echo "bench_ratios: the benchmark did not build (log above)"
  exit 2
fi
bin="$(bazel info --config=bench bazel-bin 2>/dev/null)/lockcheck/spinlock_benchmark"

base=BM_PlainAtomicSpinLock
exec python3 tools/ratios/ratios.py \
  --title="lockcheck spinlock benchmark, --config=bench, CPU time per lock + unlock ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'))" \
  --rounds="$rounds" \
  --ratio BM_ChecksOff_SpinLock "$base" \
  --ratio BM_ChecksOff_SpinLockIrqsave "$base" \
  --ratio BM_ChecksOn_SpinLock "$base" \
  --ratio BM_ChecksOn_SpinLockIrqsave "$base" \
  --ratio BM_ChecksOn_SpinLockUnderAnother "$base" \
  --goal "checks off / plain" 1.2 '^BM_ChecksOff_' \
  --goal "checks on / plain" 3 '^BM_ChecksOn_' \
  gbench --repetitions=3 --min_time=0.05 -- "$bin"
