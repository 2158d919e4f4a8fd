#!/usr/bin/env bash
# //tools:reproduce_sched_fuzz_test: one reproduce path for every concurrent
# failure. A sched_fuzz failure's schedule file (reproduce --schedule_out) is
# a stress schedule of the same program: stress_main --replay reproduces it
# with the trace hash the fuzz run printed, --minimize cuts it (replaying
# strictly) and --trace_out draws it.
# Args: the reproduce binary, the stress_main binary, the flush hazard seed.
set -uo pipefail
repro=$1 stress=$2 hazard=$3
tmp=${TEST_TMPDIR:-$(mktemp -d)}/reproduce_sched_fuzz
rm -rf "$tmp" && mkdir -p "$tmp/s"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$repro" --strict --schedule_out="$tmp/s/hazard.schedule" "$hazard" >"$tmp/f" 2>&1; rc=$?
[ "$rc" = 1 ] || fail "--schedule_out: exit $rc, expected 1: $(tail -3 "$tmp/f")"
hash=$(grep -E '^flowcheck: trace hash [0-9a-f]{16}$' "$tmp/f" | tail -1 | awk '{print $4}')
[ -n "$hash" ] || fail "the fuzz run printed no trace hash"
"$stress" --replay="$tmp/s/hazard.schedule" >"$tmp/g" 2>&1; rc=$?
[ "$rc" = 1 ] || fail "--replay: exit $rc, expected 1"
grep -qF "flowcheck: replay: reproduced [check], trace hash $hash as recorded" "$tmp/g" ||
  fail "--replay did not reproduce: $(tail -3 "$tmp/g")"
"$stress" --replay="$tmp/s/hazard.schedule" --minimize >"$tmp/h" 2>&1; rc=$?
[ "$rc" = 1 ] || fail "--minimize: exit $rc, expected 1: $(tail -3 "$tmp/h")"
[ -f "$tmp/s/hazard.min.schedule" ] || fail "--minimize wrote no hazard.min.schedule"
grep -qF "flowcheck: minimize: the minimized schedule replays strictly: reproduced [check]" "$tmp/h" ||
  fail "the minimized schedule does not replay: $(tail -3 "$tmp/h")"
"$stress" --replay="$tmp/s/hazard.schedule" --trace_out="$tmp/s/t.json" >"$tmp/i" 2>&1; rc=$?
[ "$rc" = 1 ] || fail "--trace_out: exit $rc, expected 1"
grep -q '"threads"' "$tmp/s/t.json" 2>/dev/null || fail "--trace_out wrote no trace: $(head -c 200 "$tmp/s/t.json" 2>&1)"

[ "$fails" = 0 ] && echo "reproduce_sched_fuzz_test: all checks passed"
exit $((fails > 0))
