#!/usr/bin/env bash
# //tools:reproduce_sched_test: tools/reproduce.sh's --minimize and
# --timeline on schedule files, with a stand-in `bazel` first on PATH (a
# test cannot run Bazel inside Bazel) whose bazel-bin holds the real
# sched_examples:
#   FILE               -> built in the config of FILE's sanitizer line, replayed: exit 1;
#   --minimize FILE    -> <name>.min.schedule beside FILE, FILE untouched: exit 1;
#   --timeline=P.html  -> P.trace.json and the page P.html (paths from the
#                         caller's directory): exit 1 (the replay's status);
#   both               -> the page of the minimized failure;
#   on a fuzz input    -> exit 2.
# Args: tools/reproduce.sh, the sched_examples binary.
set -uo pipefail
script=$(readlink -f "$1") examples=$(readlink -f "$2")
tmp=${TEST_TMPDIR:-$(mktemp -d)}/reproduce_sched
rm -rf "$tmp" && mkdir -p "$tmp/fakebin" "$tmp/bazel-bin/sched" "$tmp/work"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ln -sf "$examples" "$tmp/bazel-bin/sched/sched_examples"
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
run() {  # run ARGS...: the script from $tmp/work; sets rc, out (stdout+stderr)
  (cd "$tmp/work" && env PATH="$tmp/fakebin:$PATH" "$script" "$@") >"$tmp/out" 2>&1
  rc=$?
  out=$(cat "$tmp/out")
}

(cd "$tmp/work" && "$examples" --scenario=bitmap_ops --param=ops.0=nop,alloc_split,nop \
  --param=ops.1=alloc,free,nop --param=ops.2=nop,nop --strategy=random --seed=3 --quiet \
  --schedule_out=found.schedule) >"$tmp/find" 2>&1 || true
[ -f "$tmp/work/found.schedule" ] || { fail "no failure found: $(cat "$tmp/find")"; exit 1; }
cp "$tmp/work/found.schedule" "$tmp/found.copy"

run found.schedule
[ "$rc" = 1 ] || fail "replay: exit $rc, expected 1: $out"
grep -q "^flowcheck: replay: reproduced \[check\]" <<<"$out" || fail "replay did not reproduce: $out"
# The config follows the file's sanitizer line (this binary's own build
# wrote it: none, or tsan/asan under --config=tsan/asan).
config_of() { case "$1" in tsan|asan) echo "--config=$1 " ;; *) echo "" ;; esac; }
found_san=$(sed -n 's/^sanitizer //p' "$tmp/work/found.schedule")
grep -q "^build $(config_of "$found_san")--ui_event_filters.*//sched:sched_examples" "$tmp/bazel.log" ||
  fail "sanitizer $found_san: not built as $(config_of "$found_san"): $(cat "$tmp/bazel.log")"
other=tsan
[ "$found_san" = tsan ] && other=none
sed "s/^sanitizer .*/sanitizer $other/" "$tmp/work/found.schedule" >"$tmp/work/other.schedule"
: >"$tmp/bazel.log"
run other.schedule
grep -q "^build $(config_of "$other")--ui_event_filters.*//sched:sched_examples" "$tmp/bazel.log" ||
  fail "sanitizer $other: not built as $(config_of "$other"): $(cat "$tmp/bazel.log")"

run --minimize found.schedule
[ "$rc" = 1 ] || fail "--minimize: exit $rc, expected 1: $out"
grep -q "^flowcheck: schedule written: $tmp/work/found.min.schedule$" <<<"$out" ||
  fail "--minimize: no found.min.schedule: $out"
grep -q "^flowcheck: minimize: after:  ops 2, " <<<"$out" || fail "--minimize: not minimal: $out"
cmp -s "$tmp/work/found.schedule" "$tmp/found.copy" || fail "--minimize changed its input"

run --timeline=page.html found.schedule
[ "$rc" = 1 ] || fail "--timeline: exit $rc, expected 1: $out"
[ -s "$tmp/work/page.trace.json" ] || fail "--timeline: no page.trace.json"
grep -q "^flowcheck: timeline written: $tmp/work/page.html$" <<<"$out" || fail "--timeline: $out"
grep -q 'class="failure-marker"' "$tmp/work/page.html" || fail "--timeline: no failure marker"
grep -q 'class="lock-bar"' "$tmp/work/page.html" || fail "--timeline: no lock bar"

run --minimize --timeline=min.html found.schedule
[ "$rc" = 1 ] || fail "--minimize --timeline: exit $rc: $out"
python3 - "$tmp/work/min.trace.json" "$tmp/work/found.min.schedule" <<'PY' || fail "min.trace.json is not the minimized run"
import json, sys
t = json.load(open(sys.argv[1]))
params = {l.split()[1].split("=", 1)[0]: l.split()[1].split("=", 1)[1]
          for l in open(sys.argv[2]) if l.startswith("param ")}
assert t["params"] == params, (t["params"], params)
PY

printf 'not a schedule\n' >"$tmp/work/crash-x"
run --minimize crash-x
[ "$rc" = 2 ] || fail "--minimize on a fuzz input: exit $rc, expected 2"
grep -q "apply to schedule files and sched_fuzz inputs only" <<<"$out" || fail "no reason: $out"

[ "$fails" = 0 ] && echo "reproduce_sched_test: all checks passed"
exit $((fails > 0))
