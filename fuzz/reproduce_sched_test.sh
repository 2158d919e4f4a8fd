#!/usr/bin/env bash
# //fuzz:reproduce_sched_test: reproduce on sched_fuzz inputs.
#   a failing input (the flush hazard seed under --strict) -> exit 1, the ops
#   per thread, the interleaving step by step, the FAIL marker with its step,
#   "flowcheck: trace hash <hex>", and the same output on every replay;
#   the same input without --strict -> exit 0, PASSES, the hazard noted;
#   --target=sched_fuzz accepted, another target refused (exit 2).
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

[ "$fails" = 0 ] && echo "reproduce_sched_test: all checks passed"
exit $((fails > 0))
