#!/usr/bin/env bash
# tsan_canary_test.sh MODE BINARY
# Proof that controlled scheduling does not blind ThreadSanitizer. MODE is the
# active sanitizer config (tsan, asan or none); BINARY is sched_examples.
# Scenario flow_mask_canary: two logical threads set a bit of a shared
# `unsigned long` (a flow_mask stand-in), one decision point before each
# update. Both backends:
#   locked=0 (no lock): 10 seeds, each a fresh process (TSan reports a racy
#            pair once per process, and halts on it): under TSan every run
#            must report the data race in FlowMaskCanarySetBitUnlocked;
#            elsewhere every run passes.
#   locked=1 (exp_lock, a lockcheck spinlock): 10 executions in one process
#            (nothing may be reported, so no report can hide another).
#   locked=0 race_after=3: 5 executions in one process, the first 3 under
#            exp_lock: the race first happens on logical threads that reuse
#            earlier executions' fibers or OS threads (switcher.h); under
#            TSan it must be reported all the same.
set -uo pipefail
mode="$1" bin="$2"
fail=0
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
# Bazel's sharding (shard_count in sched/BUILD): one backend per shard, so
# the two run side by side; unsharded, both in turn.
backends=(fiber baton)
if [ -n "${TEST_TOTAL_SHARDS:-}" ]; then
  [ -n "${TEST_SHARD_STATUS_FILE:-}" ] && touch "$TEST_SHARD_STATUS_FILE"
  backends=("${backends[@]:${TEST_SHARD_INDEX}:1}")
  # Not passed on: sched::Run would split each run's executions over shards.
  unset TEST_TOTAL_SHARDS TEST_SHARD_INDEX
fi
# canary ARGS...: one sched_examples run of the scenario into $out; sets rc.
canary() {
  "$bin" --scenario=flow_mask_canary --backend="$backend" --schedule_out="${TEST_TMPDIR:-/tmp}/" \
    "$@" >"$out" 2>&1
  rc=$?
}
# Whether the last run stopped on TSan's report of the unlocked update.
race_reported() {
  [ "$rc" -ne 0 ] && grep -q "WARNING: ThreadSanitizer: data race" "$out" &&
    grep -q "FlowMaskCanarySetBitUnlocked" "$out"
}
for backend in "${backends[@]}"; do
  reported=0 silent=0 reused=""
  for seed in 1 2 3 4 5 6 7 8 9 10; do
    canary --param=locked=0 --seed="$seed" --executions=1
    if [ "$mode" = tsan ]; then
      if race_reported; then
        reported=$((reported + 1))
      else
        echo "FAIL: $backend seed $seed locked=0: TSan did not report the race (exit $rc):"
        head -40 "$out"
        fail=1
      fi
    elif [ "$rc" -ne 0 ]; then
      echo "FAIL: $backend seed $seed locked=0 without TSan: exit $rc:"; head -40 "$out"; fail=1
    fi
  done
  canary --param=locked=1 --seed=1 --executions=10
  if [ "$rc" -eq 0 ] && ! grep -q "ThreadSanitizer" "$out" &&
     grep -q "^flowcheck: random: 10 executions (seed 1), none failed" "$out"; then
    silent=10
  else
    echo "FAIL: $backend locked=1: expected 10 executions, exit 0 and no report, got exit $rc:"
    head -40 "$out"
    fail=1
  fi
  canary --param=locked=0 --param=race_after=3 --seed=1 --executions=5
  if [ "$mode" = tsan ]; then
    if race_reported; then
      reused="reported"
    else
      echo "FAIL: $backend race_after=3: TSan did not report the race on reused contexts (exit $rc):"
      head -40 "$out"
      fail=1
    fi
  elif [ "$rc" -ne 0 ] || ! grep -q "^flowcheck: random: 5 executions (seed 1), none failed" "$out"; then
    echo "FAIL: $backend race_after=3 without TSan: exit $rc:"; head -40 "$out"; fail=1
  fi
  if [ "$mode" = tsan ]; then
    echo "$backend: unlocked update reported by TSan in $reported of 10 runs; under exp_lock silent in $silent of 10 executions; on reused contexts (race_after=3) ${reused:-not reported}"
  else
    echo "$backend: ($mode build, no TSan) both variants pass; under exp_lock silent in $silent of 10 executions"
  fi
done
exit "$fail"
