#!/usr/bin/env bash
# //tools:reproduce_sched_test: tools/reproduce.sh's --minimize and
# --timeline on schedule files, with a stand-in `bazel` first on PATH (a
# test cannot run Bazel inside Bazel) whose bazel-bin holds the real
# sched_examples:
#   FILE               -> built in the config of FILE's sanitizer line (tsan ->
#                         --config=tsan, asan -> --config=asan, none -> no
#                         config; any other --config given is kept), replayed:
#                         exit 1; no usable target line or an unknown
#                         sanitizer -> exit 2, nothing built; the build fails
#                         -> exit 3 with the build log;
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
  build) [ -n "\${FAKE_BUILD_FAILS:-}" ] && { echo "ERROR: sched/BUILD: a broken build" >&2; exit 1; }; exit 0 ;;
  info) echo "$tmp/bazel-bin" ;;
  *) exit 64 ;;
esac
FAKE
chmod +x "$tmp/fakebin/bazel"
run() {  # run [ENV=V...] ARGS...: the script from $tmp/work; sets rc, out (stdout+stderr)
  local envs=()
  while [[ "${1:-}" == *=* && "$1" != -* ]]; do envs+=("$1"); shift; done
  rm -f "$tmp/bazel.log"
  (cd "$tmp/work" && env PATH="$tmp/fakebin:$PATH" "${envs[@]}" "$script" "$@") >"$tmp/out" 2>&1
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
# The config follows the file's sanitizer line; `bazel info` asks for the
# same config's bazel-bin.
for san in tsan asan none; do
  sed "s/^sanitizer .*/sanitizer $san/" "$tmp/work/found.schedule" >"$tmp/work/$san.schedule"
  run "$san.schedule"
  case "$san" in tsan|asan) w="--config=$san " ;; *) w="" ;; esac
  grep -qxF "build ${w}--ui_event_filters=-info,-stdout --noshow_progress //sched:sched_examples" \
    "$tmp/bazel.log" || fail "sanitizer $san: built with: $(head -n 1 "$tmp/bazel.log")"
  grep -qxF "info ${w}bazel-bin" "$tmp/bazel.log" || fail "sanitizer $san: bazel info: $(cat "$tmp/bazel.log")"
done
# Another --config (the kernel text a schedule was found on) is kept; the
# file's sanitizer line still decides tsan/asan.
run --config=upstream --config=asan tsan.schedule
grep -qxF "build --config=upstream --config=tsan --ui_event_filters=-info,-stdout --noshow_progress //sched:sched_examples" \
  "$tmp/bazel.log" || fail "--config=upstream: built with: $(head -n 1 "$tmp/bazel.log")"

sed '/^target /d' "$tmp/work/found.schedule" >"$tmp/work/notarget.schedule"
run notarget.schedule
[ "$rc" = 2 ] || fail "no target line: exit $rc, expected 2"
[ ! -f "$tmp/bazel.log" ] || fail "no target line: bazel was run"
sed 's/^sanitizer .*/sanitizer msan/' "$tmp/work/found.schedule" >"$tmp/work/msan.schedule"
run msan.schedule
[ "$rc" = 2 ] || fail "sanitizer msan: exit $rc, expected 2"
grep -qF "'sanitizer' must be tsan, asan or none, not 'msan'" <<<"$out" || fail "msan: $out"
run FAKE_BUILD_FAILS=1 found.schedule
[ "$rc" = 3 ] || fail "a failed build: exit $rc, expected 3"
grep -qF "ERROR: sched/BUILD: a broken build" <<<"$out" || fail "no build log: $out"
grep -qF "reproduce.sh: building //sched:sched_examples failed" <<<"$out" || fail "no reason: $out"

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
