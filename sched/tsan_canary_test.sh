#!/usr/bin/env bash
# tsan_canary_test.sh MODE BINARY
# Proof that controlled scheduling does not blind ThreadSanitizer. MODE is the
# active sanitizer config (tsan, asan or none); BINARY is sched_examples.
# Scenario flow_mask_canary: two logical threads set a bit of a shared
# `unsigned long` (a flow_mask stand-in), one decision point before each
# update. Each run is a fresh process (TSan reports a racy pair once per
# process), 10 seeds, both backends:
#   locked=0 (no lock): under TSan, every run must report the data race in
#            FlowMaskCanarySetBitUnlocked; elsewhere every run passes.
#   locked=1 (exp_lock, a lockcheck spinlock): no run may report anything.
set -uo pipefail
mode="$1" bin="$2"
fail=0
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
for backend in fiber baton; do
  reported=0 silent=0
  for seed in 1 2 3 4 5 6 7 8 9 10; do
    "$bin" --scenario=flow_mask_canary --param=locked=0 --backend="$backend" --seed="$seed" \
      --executions=1 --schedule_out="${TEST_TMPDIR:-/tmp}/" >"$out" 2>&1
    rc=$?
    if [ "$mode" = tsan ]; then
      if [ "$rc" -ne 0 ] && grep -q "WARNING: ThreadSanitizer: data race" "$out" \
         && grep -q "FlowMaskCanarySetBitUnlocked" "$out"; then
        reported=$((reported + 1))
      else
        echo "FAIL: $backend seed $seed locked=0: TSan did not report the race (exit $rc):"
        head -40 "$out"
        fail=1
      fi
    elif [ "$rc" -ne 0 ]; then
      echo "FAIL: $backend seed $seed locked=0 without TSan: exit $rc:"; head -40 "$out"; fail=1
    fi
    "$bin" --scenario=flow_mask_canary --param=locked=1 --backend="$backend" --seed="$seed" \
      --executions=1 --schedule_out="${TEST_TMPDIR:-/tmp}/" >"$out" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ] && ! grep -q "ThreadSanitizer" "$out"; then
      silent=$((silent + 1))
    else
      echo "FAIL: $backend seed $seed locked=1: expected exit 0 and no report, got exit $rc:"
      head -40 "$out"
      fail=1
    fi
  done
  if [ "$mode" = tsan ]; then
    echo "$backend: unlocked update reported by TSan in $reported of 10 runs; under exp_lock silent in $silent of 10"
  else
    echo "$backend: ($mode build, no TSan) both variants pass; under exp_lock silent in $silent of 10"
  fi
done
exit "$fail"
