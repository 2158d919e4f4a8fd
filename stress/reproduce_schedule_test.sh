#!/usr/bin/env bash
# //stress:reproduce_schedule_test: a controlled stress run that finds the
# kernel's flush hazard (--flush_handoff=false) writes a schedule file, and
# tools/reproduce.sh replays it, with a stand-in `bazel` first on PATH (a
# test cannot run Bazel inside Bazel) that logs what it was asked to build:
# the file's target, built in the config of its sanitizer line, run as
# TARGET --replay=FILE: exit 1, the same stress FAIL line and trace hash, ten
# times in a row; --minimize and --timeline on it. On every kernel text (the
# search and the replays run the kernel's code); how reproduce.sh maps a
# schedule file's lines to a build is //tools:reproduce_sched_test's.
# Args: tools/reproduce.sh, the stress_main binary.
set -uo pipefail
script=$(readlink -f "$1") bin=$(readlink -f "$2")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir -p "$tmp/fakebin" "$tmp/bazel-bin/stress" "$tmp/work" "$tmp/found"
ln -sf "$bin" "$tmp/bazel-bin/stress/stress_main"
cat >"$tmp/fakebin/bazel" <<FAKE
#!/usr/bin/env bash
echo "\$*" >>"$tmp/bazel.log"
case "\$1" in
  build) exit 0 ;;
  info) echo "$tmp/bazel-bin" ;;
  *) exit 64 ;;
esac
FAKE
chmod +x "$tmp/fakebin/bazel"

# The search: pct, seed 89 (found early on the model and on the kernel's text), the kernel's flush sequence (deterministic: the
# scheduler decides every interleaving).
"$bin" --sched=pct --seed=89 --flush_handoff=false --sched_executions=20000 \
  --schedule_out="$tmp/found/" --progress_every=0 >"$tmp/search.out" 2>"$tmp/search.err"
rc=$?
[ "$rc" = 1 ] || fail "the search: exit $rc, expected 1 (a failure found)"
file=$(sed -n 's/^flowcheck: schedule written: //p' "$tmp/search.err")
[ -n "$file" ] && [ -f "$file" ] || fail "no 'flowcheck: schedule written: PATH' line, or no file"
grep -qF "flowcheck: rerun: tools/reproduce.sh $file" "$tmp/search.err" || fail "no rerun line"
fail_line=$(grep -m1 '^flowcheck: FAIL \[invariant no-lost-wakeup\]' "$tmp/search.err")
[ -n "$fail_line" ] || fail "no stress FAIL line [invariant no-lost-wakeup]: $(grep FAIL "$tmp/search.err")"
hash_line=$(grep '^flowcheck: trace hash' "$tmp/search.err" | tail -n 1)
grep -q '^flowcheck: pct: bound 1/(n k^(d-1))' "$tmp/search.err" || fail "no pct bound line"
sanitizer=$(sed -n 's/^sanitizer //p' "$file")
case "$sanitizer" in tsan) want="--config=tsan" ;; asan) want="--config=asan" ;; *) want="" ;; esac
grep -qx 'target //stress:stress_main' "$file" || fail "the file's target is not //stress:stress_main"
grep -q '^param ops.stress-0=' "$file" || fail "no ops.stress-0 param in the file"

# run ARGS...: tools/reproduce.sh from $tmp/work; sets rc, out, err.
run() {
  rm -f "$tmp/bazel.log"
  (cd "$tmp/work" && env PATH="$tmp/fakebin:$PATH" "$script" "$@") \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out") err=$(cat "$tmp/err")
}

cp "$file" "$tmp/work/found.schedule"
for i in 1 2 3 4 5 6 7 8 9 10; do
  run found.schedule
  [ "$rc" = 1 ] || fail "replay $i: exit $rc, expected 1 (stderr: $(tail -n 3 "$tmp/err"))"
  grep -qxF -- "$fail_line" "$tmp/err" || fail "replay $i: not the same FAIL line"
  grep -qxF -- "$hash_line" "$tmp/err" || fail "replay $i: not the same trace hash ($hash_line)"
  grep -q "^flowcheck: replay: reproduced \[check\]" "$tmp/err" || fail "replay $i: not reproduced"
done
grep -qxF "build ${want:+$want }--ui_event_filters=-info,-stdout --noshow_progress //stress:stress_main" \
  "$tmp/bazel.log" || fail "sanitizer '$sanitizer': built with: $(head -n 1 "$tmp/bazel.log")"

# --minimize: fewer ops, the same failure marker, a strict replay of the result.
run --minimize found.schedule
[ "$rc" = 1 ] || fail "--minimize: exit $rc, expected 1 (stderr: $(tail -n 3 "$tmp/err"))"
[ -f "$tmp/work/found.min.schedule" ] || fail "--minimize: no found.min.schedule"
cmp -s "$file" "$tmp/work/found.schedule" || fail "--minimize changed its input"
before=$(sed -n 's/^flowcheck: minimize: before: ops \([0-9]*\),.*/\1/p' "$tmp/err")
after=$(sed -n 's/^flowcheck: minimize: after: *ops \([0-9]*\),.*/\1/p' "$tmp/err")
[ -n "$before" ] && [ -n "$after" ] && [ "$after" -lt "$before" ] ||
  fail "--minimize: ops before '$before', after '$after' (want fewer)"
run found.min.schedule
[ "$rc" = 1 ] || fail "the minimized schedule: exit $rc, expected 1"
grep -q '^flowcheck: FAIL \[invariant no-lost-wakeup\]' "$tmp/err" || fail "minimized: not the same failure"

# --timeline: the page shows flow_mask and the queues after every step.
run --timeline=page.html found.min.schedule
[ "$rc" = 1 ] || fail "--timeline: exit $rc, expected 1 (stderr: $(tail -n 3 "$tmp/err"))"
grep -q 'flow_mask=0x' "$tmp/work/page.html" || fail "--timeline: no flow_mask in the page"
grep -q 'flow_queue=\[' "$tmp/work/page.html" || fail "--timeline: no flow_queue in the page"

if [ "$fails" = 0 ]; then echo "PASS: found, written, replayed 10 times by reproduce.sh, minimized, drawn"; fi
exit $((fails > 0))
