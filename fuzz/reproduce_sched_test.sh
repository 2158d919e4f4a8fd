#!/usr/bin/env bash
# //fuzz:reproduce_sched_test: reproduce on sched_fuzz inputs, and the one
# reproduce path they share with stress (their failure's schedule file).
#   a failing input (the flush hazard seed under --strict) -> exit 1, the ops
#   per participant in the engine's text, the FAIL marker, "flowcheck: trace
#   hash <hex>", and the same output on every replay;
#   the same input without --strict -> exit 0, PASSES;
#   --target=flow_fuzz refused (exit 2); a version 1 input refused, named;
#   --schedule_out: the failure's schedule file is a stress schedule of the
#   same program (scenario stress, target //stress:stress_main, strict
#   recorded, the same trace hash); no schedule for a passing input.
#   (//tools:reproduce_sched_fuzz_test replays, minimizes and draws it with
#   stress_main.)
# Args: reproduce binary, the hazard seed, a passing seed.
set -uo pipefail
repro=$1 hazard=$2 passing=$3
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# stdout is the replay; stderr may carry a sanitizer's per-process notes.
"$repro" --target=sched_fuzz --strict "$hazard" >"$tmp/a" 2>"$tmp/a.err"; rc=$?
[ "$rc" = 1 ] || fail "strict hazard: exit $rc, expected 1: $(cat "$tmp/a" "$tmp/a.err")"
"$repro" --target=sched_fuzz --strict "$hazard" >"$tmp/b" 2>"$tmp/b.err"
cmp -s "$tmp/a" "$tmp/b" || { fail "two replays differ:"; diff "$tmp/a" "$tmp/b" | head -20; }
for want in "ops per participant" "  stress-1: setup@0,setup@1,give_up@0" "interleaving: " \
    "flowcheck: FAIL [invariant no-lost-wakeup] sched_fuzz: " "result: REPRODUCED after"; do
  grep -qF -- "$want" "$tmp/a" || fail "no '$want' in the failing replay"
done
grep -qE '^flowcheck: trace hash [0-9a-f]{16}$' "$tmp/a" || fail "no trace hash line"

"$repro" "$hazard" >"$tmp/c" 2>&1; rc=$?
[ "$rc" = 0 ] || fail "hazard without --strict: exit $rc, expected 0"
grep -qF "result: the input PASSES" "$tmp/c" || fail "no PASSES line"

"$repro" --target=sched_fuzz "$passing" >"$tmp/d" 2>&1; rc=$?
[ "$rc" = 0 ] || fail "passing seed: exit $rc"
grep -qE '^flowcheck: trace hash [0-9a-f]{16}$' "$tmp/d" || fail "no trace hash line (pass)"

"$repro" --target=flow_fuzz "$passing" >"$tmp/e" 2>&1; rc=$?
[ "$rc" = 2 ] || fail "--target=flow_fuzz on an 'S' input: exit $rc, expected 2"
grep -qF "is a sched_fuzz input" "$tmp/e" || fail "no 'is a sched_fuzz input' message"

printf 'S\001\000\000\000\000\000\000\000' >"$tmp/v1"
"$repro" "$tmp/v1" >"$tmp/v" 2>&1; rc=$?
[ "$rc" = 2 ] || fail "a version 1 input: exit $rc, expected 2"
grep -qF "version 1: no longer run" "$tmp/v" || fail "the version 1 refusal does not say why: $(cat "$tmp/v")"

# The failure as a schedule file.
mkdir -p "$tmp/s"
"$repro" --strict --schedule_out="$tmp/s/hazard.schedule" "$hazard" >"$tmp/f" 2>&1; rc=$?
[ "$rc" = 1 ] || fail "--schedule_out: exit $rc, expected 1: $(tail -3 "$tmp/f")"
grep -qF "flowcheck: schedule written: $tmp/s/hazard.schedule" "$tmp/f" || fail "no 'schedule written' line"
hash=$(grep -E '^flowcheck: trace hash [0-9a-f]{16}$' "$tmp/a" | tail -1 | awk '{print $4}')
grep -qx "scenario stress" "$tmp/s/hazard.schedule" || fail "not a stress schedule"
grep -qx "param strict=1" "$tmp/s/hazard.schedule" || fail "strict not recorded"
grep -qx "param ops.stress-1=setup@0,setup@1,give_up@0" "$tmp/s/hazard.schedule" || fail "the program is not in the schedule"
grep -qx "target //stress:stress_main" "$tmp/s/hazard.schedule" || fail "target not //stress:stress_main"
grep -qx "trace-hash $hash" "$tmp/s/hazard.schedule" || fail "the schedule's trace hash is not the replay's ($hash)"
"$repro" --schedule_out="$tmp/s/pass.schedule" "$passing" >"$tmp/j" 2>&1; rc=$?
[ "$rc" = 0 ] || fail "passing seed with --schedule_out: exit $rc"
[ ! -e "$tmp/s/pass.schedule" ] || fail "a passing input wrote a schedule"

[ "$fails" = 0 ] && echo "reproduce_sched_test: all checks passed"
exit $((fails > 0))
