#!/usr/bin/env bash
# minimize_test.sh BINARY: --minimize (sched/minimize.h) in fresh processes.
# A failure of bitmap_ops with padding ops and threads is found by random
# search, minimized to its known minimum (the two racing allocs, one
# preemption), never over its input; the result replays strictly 10 times
# with the same FAIL marker and trace hash; a deadlock (abba) and a
# scenario without ops (bitmap_alloc, 4 threads) shrink their preemptions;
# an unusable input exits 2.
set -uo pipefail
bin="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}/minimize"
rm -rf "$tmp" && mkdir -p "$tmp"
fail=0
check() {  # check DESCRIPTION EXPECTED_RC ACTUAL_RC OUTPUT_FILE PATTERN...
  local what="$1" want="$2" got="$3" file="$4"
  shift 4
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"; head -40 "$file"; fail=1; return
  fi
  for pattern in "$@"; do
    if ! grep -qE -- "$pattern" "$file"; then
      echo "FAIL: $what: no line matching '$pattern' in:"; head -40 "$file"; fail=1; return
    fi
  done
  echo "ok: $what"
}
# The FAIL line with lockcheck thread ids and addresses blanked (the marker).
marker() { grep -m1 '^flowcheck: FAIL ' "$1" | sed -E 's/thread [0-9]+ "/thread ? "/g; s/0x[0-9a-f]{8,}/0x?/g'; }
# count FILE WHAT: the number after WHAT on the "after:" line.
count() { sed -nE "s/^flowcheck: minimize: $2: .*$3 ([0-9]+).*/\1/p" "$1"; }

"$bin" --scenario=bitmap_ops --param=ops.0=nop,alloc,nop,free,alloc_split,nop \
  --param=ops.1=nop,alloc_split,nop,nop --param=ops.2=alloc,free,nop --param=ops.3=nop,nop \
  --strategy=random --seed=3 --quiet --schedule_out="$tmp/" >"$tmp/find" 2>&1
check "random finds the padded bitmap_ops failure" 1 $? "$tmp/find" "^flowcheck: FAIL \[check\] "
input=$(sed -n 's/^flowcheck: schedule written: //p' "$tmp/find")
cp "$input" "$tmp/input.copy"

min="${input%.schedule}.min.schedule"
"$bin" --replay="$input" --minimize >"$tmp/min" 2>&1
check "minimize writes <name>.min.schedule" 1 $? "$tmp/min" \
  "^flowcheck: minimize: before: ops 15, decisions [0-9]+, preemptions [0-9]+$" \
  "^flowcheck: minimize: after:  ops 2, decisions [0-9]+, preemptions 1 \(" \
  "^flowcheck: schedule written: $min$" "^flowcheck: rerun: tools/reproduce.sh $min$" \
  "^flowcheck: minimize: the minimized schedule replays strictly: reproduced \[check\]"
if ! cmp -s "$input" "$tmp/input.copy"; then echo "FAIL: the input was changed"; fail=1; fi
if [ "$(marker "$tmp/min")" != "$(marker "$tmp/find")" ]; then
  echo "FAIL: the marker changed: '$(marker "$tmp/find")' -> '$(marker "$tmp/min")'"; fail=1
fi
if [ "$(count "$tmp/min" before preemptions)" -le 1 ]; then
  echo "FAIL: the input already had <= 1 preemption: the test shows nothing"; fail=1
fi
grep -q '^param ops.1=alloc_split$' "$min" && grep -q '^param ops.2=alloc$' "$min" &&
  grep -q '^param ops.0=$' "$min" && grep -q '^param ops.3=$' "$min" ||
  { echo "FAIL: unexpected ops in $min:"; grep '^param' "$min"; fail=1; }

hash=$(sed -n 's/^trace-hash //p' "$min")
for i in 1 2 3 4 5 6 7 8 9 10; do
  "$bin" --replay="$min" >"$tmp/replay" 2>&1
  rc=$?
  if [ "$rc" -ne 1 ] || ! grep -q "^flowcheck: replay: reproduced \[check\], trace hash $hash as recorded$" "$tmp/replay" ||
     [ "$(marker "$tmp/replay")" != "$(marker "$tmp/find")" ]; then
    echo "FAIL: strict replay $i of the minimized schedule (exit $rc)"; head -20 "$tmp/replay"; fail=1
  fi
done
echo "ok: 10 strict replays of the minimized schedule: same marker, trace hash $hash"

cp "$min" "$tmp/min.copy"
"$bin" --replay="$min" --minimize >"$tmp/min2" 2>&1
check "minimizing the result again writes .min.min.schedule" 1 $? "$tmp/min2" \
  "^flowcheck: schedule written: ${min%.schedule}.min.schedule$" \
  "^flowcheck: minimize: after:  ops 2, decisions [0-9]+, preemptions 1 \("
cmp -s "$min" "$tmp/min.copy" || { echo "FAIL: the .min.schedule input was changed"; fail=1; }

# No ops.* parameter: only the preemptions shrink (4 threads, pct).
"$bin" --scenario=bitmap_alloc --param=threads=4 --strategy=random --seed=1 --quiet \
  --schedule_out="$tmp/alloc4.schedule" >"$tmp/find4" 2>&1
check "random finds bitmap_alloc with 4 threads" 1 $? "$tmp/find4" "^flowcheck: FAIL \[check\] "
"$bin" --replay="$tmp/alloc4.schedule" --minimize >"$tmp/min4" 2>&1
check "bitmap_alloc (no ops): preemptions shrink to 1" 1 $? "$tmp/min4" \
  "^flowcheck: minimize: before: ops 0, decisions [0-9]+, preemptions ([2-9]|[1-9][0-9]+)$" \
  "^flowcheck: minimize: after:  ops 0, decisions [0-9]+, preemptions 1 \(" \
  "^flowcheck: schedule written: $tmp/alloc4.min.schedule$"
[ "$(marker "$tmp/min4")" = "$(marker "$tmp/find4")" ] || { echo "FAIL: bitmap_alloc marker changed"; fail=1; }

# A deadlock: same kind, same line (thread ids and addresses aside).
"$bin" --scenario=abba --strategy=random --seed=2 --quiet --lockcheck_reports=record \
  --schedule_out="$tmp/abba.schedule" >"$tmp/findab" 2>&1
check "random finds the abba deadlock" 1 $? "$tmp/findab" "^flowcheck: FAIL \[deadlock\] "
"$bin" --replay="$tmp/abba.schedule" --minimize >"$tmp/minab" 2>&1
check "abba: minimized, still the deadlock" 1 $? "$tmp/minab" \
  "^flowcheck: minimize: after:  ops 0, decisions [0-9]+, preemptions 1 \(" \
  "^flowcheck: FAIL \[deadlock\] nothing can run and some threads wait$" \
  "^flowcheck: minimize: the minimized schedule replays strictly: reproduced \[deadlock\]"

# Unusable inputs: exit 2, nothing written. An edited schedule is refused by
# its checksum; as a version 1 file (no checksum, no code), the same edit is a
# program that no longer fails.
sed 's/alloc_split/alloc/g' "$input" >"$tmp/edited.schedule"
"$bin" --replay="$tmp/edited.schedule" --minimize >"$tmp/edited" 2>&1
check "an edited schedule is refused" 2 $? "$tmp/edited" \
  "checksum mismatch: .*: the file was edited or corrupted"
sed -e 's/alloc_split/alloc/g' -e 's/^flowcheck-schedule 2$/flowcheck-schedule 1/' \
  -e '/^code /d' -e '/^checksum /d' "$input" >"$tmp/fixed.schedule"
"$bin" --replay="$tmp/fixed.schedule" --minimize >"$tmp/fixed" 2>&1
check "an input that no longer fails is unusable" 2 $? "$tmp/fixed" \
  "fixed.schedule does not reproduce its failure, nothing to minimize"
[ ! -e "$tmp/fixed.min.schedule" ] || { echo "FAIL: fixed.min.schedule written"; fail=1; }
sed 's/^decisions \([0-9]*\)$/decisions 999/' "$input" >"$tmp/bad.schedule"
"$bin" --replay="$tmp/bad.schedule" --minimize >"$tmp/bad" 2>&1
check "a damaged schedule is unusable" 2 $? "$tmp/bad" "line [0-9]+: 'decisions 999' but"
"$bin" --minimize >"$tmp/noreplay" 2>&1
check "--minimize without --replay" 2 $? "$tmp/noreplay" "--minimize needs --replay=FILE"
exit "$fail"
