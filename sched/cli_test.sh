#!/usr/bin/env bash
# cli_test.sh BINARY: the command line of sched_examples (sched/cli.h) in
# fresh processes: a failure found writes a schedule and exits 1; replaying
# the file in a new process reproduces the same failure and trace hash; an
# unusable file exits 2; an unwritable schedule path exits 3; a clean run
# exits 0.
set -uo pipefail
bin="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail=0
check() {  # check DESCRIPTION EXPECTED_RC ACTUAL_RC OUTPUT_FILE PATTERN...
  local what="$1" want="$2" got="$3" file="$4"
  shift 4
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"; head -30 "$file"; fail=1; return
  fi
  for pattern in "$@"; do
    if ! grep -qE -- "$pattern" "$file"; then
      echo "FAIL: $what: no line matching '$pattern' in:"; head -30 "$file"; fail=1; return
    fi
  done
  echo "ok: $what"
}

"$bin" --scenario=bitmap_alloc --strategy=pct --seed=5 --quiet --schedule_out="$tmp/" >"$tmp/find" 2>&1
check "pct finds the split test-then-set" 1 $? "$tmp/find" \
  "^flowcheck: schedule written: $tmp/bitmap_alloc-pct-seed5-exec[0-9]+\.schedule$" \
  "^flowcheck: rerun: tools/reproduce.sh $tmp/bitmap_alloc-pct-seed5-exec[0-9]+\.schedule$" \
  "^flowcheck: FAIL \[check\] .*both got bit 0" "^flowcheck: pct: bound"
schedule=$(sed -n 's/^flowcheck: schedule written: //p' "$tmp/find")
hash=$(grep "^flowcheck: trace hash" "$tmp/find" | tail -1)
for i in 1 2 3; do
  "$bin" --replay="$schedule" >"$tmp/replay" 2>&1
  check "replay $i in a fresh process" 1 $? "$tmp/replay" "^$hash\$" \
    "^flowcheck: replay: reproduced \[check\]" "^flowcheck: FAIL \[check\] .*both got bit 0"
done

sed 's/^decisions \([0-9]*\)$/decisions 999/' "$schedule" >"$tmp/bad.schedule"
"$bin" --replay="$tmp/bad.schedule" >"$tmp/bad" 2>&1
check "a damaged schedule file is unusable" 2 $? "$tmp/bad" \
  "bad.schedule: line [0-9]+: 'decisions 999' but [0-9]+ listed"
"$bin" --replay="$tmp/none.schedule" >"$tmp/none" 2>&1
check "a missing schedule file is unusable" 2 $? "$tmp/none" "cannot read .*none.schedule"
"$bin" --scenario=no_such_scenario >"$tmp/unknown" 2>&1
check "an unknown scenario is a usage error" 2 $? "$tmp/unknown" "no scenario 'no_such_scenario'"
"$bin" --scenario=bitmap_alloc --param=colour=blue >"$tmp/param" 2>&1
check "an unknown parameter is a usage error" 2 $? "$tmp/param" "has no parameter 'colour'"
"$bin" --scenario=bitmap_alloc --strategy=bogus >"$tmp/strategy" 2>&1
check "an unknown strategy is a usage error" 2 $? "$tmp/strategy" "unknown strategy 'bogus' \(random, pct or dfs"
"$bin" --scenario=bitmap_alloc --strategy=bytes >"$tmp/bytes" 2>&1
check "an internal strategy is not a flag value" 2 $? "$tmp/bytes" "unknown strategy 'bytes'"
"$bin" --scenario=bitmap_alloc --backend=threads >"$tmp/backend" 2>&1
check "an unknown backend is a usage error" 2 $? "$tmp/backend" "unknown backend 'threads' \(fiber or baton\)"
for bad in --seed=abc --depth=0 --depth=99999999999 --max_preemptions=-2 --executions=-1 \
  --max_steps=0 --param=threads=x; do
  "$bin" --scenario=bitmap_alloc "$bad" >"$tmp/number" 2>&1
  check "$bad is a usage error (not read as another number)" 2 $? "$tmp/number" \
    "bad argument '$bad'|parameter threads=x is not a number in 1\.\.8"
done

"$bin" --scenario=bitmap_alloc --strategy=dfs --schedule_out=/nonexistent-flowcheck/x.schedule \
  >"$tmp/unwritable" 2>&1
check "an unwritable schedule path" 3 $? "$tmp/unwritable" \
  "cannot write /nonexistent-flowcheck/x.schedule: .*No such file or directory"

"$bin" --scenario=bitmap_alloc --param=variant=atomic --strategy=dfs --max_preemptions=-1 \
  --quiet >"$tmp/clean" 2>&1
check "the atomic variant passes an exhaustive dfs" 0 $? "$tmp/clean" \
  "^flowcheck: dfs: explored 1 program x 20 schedules, space exhausted$"
exit "$fail"
