#!/usr/bin/env bash
# //fuzz:reproduce_sched_test: reproduce on sched_fuzz inputs.
#   a failing input (the flush hazard seed under --strict) -> exit 1, the ops
#   per thread, the interleaving step by step, the FAIL marker with its step,
#   "flowcheck: trace hash <hex>", and the same output on every replay;
#   the same input without --strict -> exit 0, PASSES, the hazard noted;
#   --target=sched_fuzz accepted, another target refused (exit 2);
#   --schedule_out: the failure's schedule file (each thread's ops as a
#   list), which --replay reproduces with the same trace hash, --minimize
#   cuts (fewer ops, written beside it, replaying strictly) and --trace_out
#   draws; no schedule for a passing input.
# Args: reproduce binary, the hazard seed, a passing seed.
set -uo pipefail
repro=$1 hazard=$2 passing=$3
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# stdout is the replay; stderr may carry a sanitizer's per-process notes
# (ASan's one-time makecontext warning names its PID).
"$repro" --target=sched_fuzz --strict "$hazard" >"$tmp/a" 2>"$tmp/a.err"; rc=$?
[ "$rc" = 1 ] || fail "strict hazard: exit $rc, expected 1: $(cat "$tmp/a" "$tmp/a.err")"
"$repro" --target=sched_fuzz --strict "$hazard" >"$tmp/b" 2>"$tmp/b.err"
cmp -s "$tmp/a" "$tmp/b" || { fail "two replays differ:"; diff "$tmp/a" "$tmp/b" | head -20; }
for want in "ops per thread" "thread t1 (qp#2, qp#3)" "interleaving (" "[t2] op #" \
    "under exp_lock: setup_hw_flow(qp#4) -> -11 (oracle -11)" \
    "flowcheck: FAIL [hazard flush-strands-waiter] sched_fuzz step " \
    "result: REPRODUCED at step"; do
  grep -qF -- "$want" "$tmp/a" || fail "no '$want' in the failing replay"
done
grep -qE '^flowcheck: trace hash [0-9a-f]{16}$' "$tmp/a" || fail "no trace hash line"

"$repro" "$hazard" >"$tmp/c" 2>&1; rc=$?
[ "$rc" = 0 ] || fail "hazard without --strict: exit $rc, expected 0"
grep -qF "note: hazard flush-strands-waiter" "$tmp/c" || fail "the hazard is not noted"
grep -qF "result: the input PASSES" "$tmp/c" || fail "no PASSES line"

"$repro" --target=sched_fuzz "$passing" >"$tmp/d" 2>&1; rc=$?
[ "$rc" = 0 ] || fail "passing seed: exit $rc"
grep -qE '^flowcheck: trace hash [0-9a-f]{16}$' "$tmp/d" || fail "no trace hash line (pass)"

"$repro" --target=flow_fuzz "$passing" >"$tmp/e" 2>&1; rc=$?
[ "$rc" = 2 ] || fail "--target=flow_fuzz on an 'S' input: exit $rc, expected 2"
grep -qF "is a sched_fuzz input" "$tmp/e" || fail "no 'is a sched_fuzz input' message"

# The failure as a schedule file, and the scheduler's tools on it.
mkdir -p "$tmp/s"
"$repro" --strict --schedule_out="$tmp/s/hazard.schedule" "$hazard" >"$tmp/f" 2>&1; rc=$?
[ "$rc" = 1 ] || fail "--schedule_out: exit $rc, expected 1: $(tail -3 "$tmp/f")"
grep -qF "flowcheck: schedule written: $tmp/s/hazard.schedule" "$tmp/f" || fail "no 'schedule written' line"
hash=$(grep -E '^flowcheck: trace hash [0-9a-f]{16}$' "$tmp/a" | tail -1 | awk '{print $4}')
grep -qx "scenario sched_fuzz" "$tmp/s/hazard.schedule" || fail "not a sched_fuzz schedule"
grep -qx "param strict=1" "$tmp/s/hazard.schedule" || fail "strict not recorded"
grep -qx "target //fuzz:reproduce" "$tmp/s/hazard.schedule" || fail "target not //fuzz:reproduce"
grep -qx "trace-hash $hash" "$tmp/s/hazard.schedule" || fail "the schedule's trace hash is not the replay's ($hash)"
"$repro" --replay="$tmp/s/hazard.schedule" >"$tmp/g" 2>&1; rc=$?
[ "$rc" = 1 ] || fail "--replay: exit $rc, expected 1"
grep -qF "flowcheck: replay: reproduced [check], trace hash $hash as recorded" "$tmp/g" ||
  fail "--replay did not reproduce: $(tail -3 "$tmp/g")"
"$repro" --replay="$tmp/s/hazard.schedule" --minimize >"$tmp/h" 2>&1; rc=$?
[ "$rc" = 1 ] || fail "--minimize: exit $rc, expected 1: $(tail -3 "$tmp/h")"
[ -f "$tmp/s/hazard.min.schedule" ] || fail "--minimize wrote no hazard.min.schedule"
grep -qF "flowcheck: minimize: the minimized schedule replays strictly: reproduced [check]" "$tmp/h" ||
  fail "the minimized schedule does not replay: $(tail -3 "$tmp/h")"
before=$(sed -n 's/^flowcheck: minimize: before: ops \([0-9]*\),.*/\1/p' "$tmp/h")
after=$(sed -n 's/^flowcheck: minimize: after: *ops \([0-9]*\),.*/\1/p' "$tmp/h")
[ -n "$before" ] && [ -n "$after" ] && [ "$after" -lt "$before" ] ||
  fail "--minimize cut no op (ops before '$before', after '$after')"
"$repro" --replay="$tmp/s/hazard.schedule" --trace_out="$tmp/s/t.json" >"$tmp/i" 2>&1; rc=$?
[ "$rc" = 1 ] || fail "--trace_out: exit $rc, expected 1"
grep -q '"threads"' "$tmp/s/t.json" 2>/dev/null || fail "--trace_out wrote no trace: $(head -c 200 "$tmp/s/t.json" 2>&1)"
"$repro" --schedule_out="$tmp/s/pass.schedule" "$passing" >"$tmp/j" 2>&1; rc=$?
[ "$rc" = 0 ] || fail "passing seed with --schedule_out: exit $rc"
[ ! -e "$tmp/s/pass.schedule" ] || fail "a passing input wrote a schedule"

[ "$fails" = 0 ] && echo "reproduce_sched_test: all checks passed"
exit $((fails > 0))
