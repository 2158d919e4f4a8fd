#!/usr/bin/env bash
# //stress:stress_main_test: stress_main's command-line contract, end to end.
#   bad command lines -> exit 2 and one line, before any run starts: unknown
#   flags, bad values (the parser or the validation alike), non-finite
#   numbers, stray arguments, a --json_out directory that cannot be written;
#   --help/--helpfull -> every flag with its help and default, exit 1, no run;
#   --json_out relative to where the user ran (BUILD_WORKING_DIRECTORY under
#   `bazel run`), written atomically as valid JSON with result/seed/rerun;
#   SIGINT/SIGTERM -> the threads stop, "interrupted" (not a pass), exit
#   130/143, JSON "interrupted"; a JSON that cannot be written at the end ->
#   a line naming the path and the errno text.
# Arg: the stress_main binary. Runs are a few hundred ops each.
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
short=(--ops_per_thread=50 --quiescent_every=25 --progress_every=0)

# json_field FILE KEY: the value of top-level KEY ("" if absent or invalid JSON).
json_field() {
  /usr/bin/python3 -c 'import json, sys
try:
    print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))
except Exception as e:
    print("INVALID JSON: %s" % e)' "$1" "$2"
}

# expect_bad MESSAGE ARGS...: exit 2, MESSAGE on stderr, one line, no run.
expect_bad() {
  local msg=$1; shift
  local rc
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ "$rc" = 2 ] || fail "stress_main $*: exit $rc, expected 2. stderr: $(cat "$tmp/err")"
  grep -qF -- "$msg" "$tmp/err" || fail "stress_main $*: no '$msg' in stderr: $(cat "$tmp/err")"
  [ "$(wc -l <"$tmp/err")" = 1 ] || fail "stress_main $*: not one line: $(cat "$tmp/err")"
  if grep -q "flowcheck stress: seed" "$tmp/out"; then fail "stress_main $*: the run started"; fi
}

expect_bad "stress_main: bad value for --seed: Illegal value 'abc'" --seed=abc
expect_bad "stress_main: unknown flag '--bogus=1'" --bogus=1
expect_bad "stress_main: unexpected argument '60'" 60

for h in --help --helpfull; do
  "$bin" "$h" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ "$rc" = 1 ] || fail "stress_main $h: exit $rc, expected 1"
  grep -qF "Flags from stress/flags.cc:" "$tmp/out" || fail "stress_main $h: no flag list"
  grep -qF -- "--irq_thread (run the emulated receive interrupt" "$tmp/out" \
    || fail "stress_main $h: --irq_thread's help missing"
  grep -qF -- "--replay (" "$tmp/out" || fail "stress_main $h: --replay missing"
  grep -qF "default: 1;" <(grep -- "--progress_every" "$tmp/out") \
    || fail "stress_main $h: --progress_every's command-line default is not 1"
  if grep -q "flowcheck stress: seed" "$tmp/out"; then fail "stress_main $h: the run started"; fi
done
for flag in --yield_probability --seconds --watchdog_seconds --progress_every; do
  expect_bad "stress_main: $flag must be a finite number" "$flag=nan"
  expect_bad "stress_main: $flag must be a finite number" "$flag=inf"
done
expect_bad "stress_main: --threads must be in 1..64" --threads=0
expect_bad "stress_main: --sched must be off, random, pct or dfs" --sched=bogus
expect_bad "stress_main: --sched_depth must be in 1..16" --sched=pct --sched_depth=0
expect_bad "stress_main: --max_preemptions must be >= -1" --sched=dfs --max_preemptions=-2
expect_bad "stress_main: --sched_executions must be >= 0" --sched=random --sched_executions=-1
expect_bad "stress_main: --sched_ops must be in 0..64" --sched=pct --sched_ops=65
expect_bad "stress_main: --sched_free_flows must be in 1..32" --sched=pct --sched_free_flows=0
expect_bad "stress_main: bad value for --sched_depth" --sched=pct --sched_depth=x
expect_bad "stress_main: --replay takes every parameter from the schedule file" \
  --replay=/nonexistent.schedule --seed=3
expect_bad "/nonexistent.schedule" --replay=/nonexistent.schedule
expect_bad "stress_main: --minimize and --trace_out need --replay=FILE" --minimize
expect_bad "stress_main: --minimize and --trace_out need --replay=FILE" --trace_out=/tmp/t.json --seed=3
expect_bad "and not with --minimize or --trace_out" \
  --replay=/nonexistent.schedule --minimize --json_out=/tmp/x.json
expect_bad "stress_main: --json_out: cannot write /nonexistent/dir/x.json: directory /nonexistent/dir: No such file or directory" \
  --seconds=2 --json_out=/nonexistent/dir/x.json
mkdir -p "$tmp/isdir.json"
expect_bad "cannot write $tmp/isdir.json: it is a directory" --json_out="$tmp/isdir.json"

# A relative --json_out lands where the user ran `bazel run`, not in the
# binary's working directory (the runfiles tree).
mkdir -p "$tmp/wd" "$tmp/cwd"
(cd "$tmp/cwd" && BUILD_WORKING_DIRECTORY="$tmp/wd" "$bin" "${short[@]}" --seed=5 \
  --json_out=rel.json >"$tmp/out" 2>&1) || fail "relative run failed: $(tail -5 "$tmp/out")"
[ -f "$tmp/wd/rel.json" ] || fail "relative --json_out not in BUILD_WORKING_DIRECTORY"
[ -e "$tmp/cwd/rel.json" ] && fail "relative --json_out written in the working directory"
grep -qF "[stress] JSON summary: $tmp/wd/rel.json" "$tmp/out" || fail "summary line: $(cat "$tmp/out")"
[ "$(json_field "$tmp/wd/rel.json" result)" = pass ] || fail "result: $(cat "$tmp/wd/rel.json")"
[ "$(json_field "$tmp/wd/rel.json" seed)" = 5 ] || fail "seed: $(cat "$tmp/wd/rel.json")"
grep -qF -- "--seed=5" <<<"$(json_field "$tmp/wd/rel.json" rerun)" || fail "rerun: $(cat "$tmp/wd/rel.json")"
grep -qF "[stress] PASS: seed 5 (fixes each thread's op list, not the interleaving)" "$tmp/out" ||
  fail "PASS line: $(grep PASS "$tmp/out")"
ls -A "$tmp/wd" | grep -q '\.tmp\.' && fail "a temporary file was left behind: $(ls -A "$tmp/wd")"
# Without BUILD_WORKING_DIRECTORY: the working directory.
(cd "$tmp/cwd" && env -u BUILD_WORKING_DIRECTORY "$bin" "${short[@]}" --json_out=rel.json \
  >/dev/null 2>&1) || fail "run in cwd failed"
[ -f "$tmp/cwd/rel.json" ] || fail "relative --json_out without BUILD_WORKING_DIRECTORY not in cwd"

# start_long NAME: a run with no end of its own, in the background; waits
# for its seed line (the signal handlers are installed before it).
start_long() {
  "$bin" --seconds=3600 --progress_every=0 --json_out="$tmp/$1/run.json" \
    >"$tmp/$1.out" 2>"$tmp/$1.err" &
  pid=$!
  until grep -q "flowcheck stress: seed" "$tmp/$1.out" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { fail "$1: the run ended early: $(cat "$tmp/$1.err")"; return 1; }
    sleep 0.1
  done
}

# expect_interrupted NAME SIGNAL CODE: the run stopped, said so, exit CODE, JSON.
expect_interrupted() {
  local name=$1 sig=$2 code=$3 rc
  wait "$pid"; rc=$?
  [ "$rc" = "$code" ] || fail "$name: exit $rc, expected $code: $(tail -5 "$tmp/$name.err")"
  [ "$(json_field "$tmp/$name/run.json" result)" = interrupted ] ||
    fail "$name: JSON: $(cat "$tmp/$name/run.json")"
  [ "$(json_field "$tmp/$name/run.json" interrupted_by)" = "$sig" ] ||
    fail "$name: interrupted_by: $(cat "$tmp/$name/run.json")"
  [ -n "$(json_field "$tmp/$name/run.json" rerun)" ] || fail "$name: no rerun"
}

mkdir -p "$tmp/int" "$tmp/term" "$tmp/twice" "$tmp/gone"
if start_long int; then
  kill -INT "$pid"
  expect_interrupted int SIGINT 130
  grep -qF "[stress] the run was interrupted by SIGINT" "$tmp/int.out" ||
    fail "int: no interrupted line: $(tail -3 "$tmp/int.out")"
  grep -qF "this is NOT a pass" "$tmp/int.out" || fail "int: does not say it is not a pass"
  grep -q "PASS" "$tmp/int.out" && fail "int: says PASS: $(grep PASS "$tmp/int.out")"
fi
if start_long term; then
  kill -TERM "$pid"
  expect_interrupted term SIGTERM 143
fi
# A second signal exits at once (or the first already ended the run):
# either way "interrupted" and 130.
if start_long twice; then
  kill -INT "$pid"; kill -INT "$pid" 2>/dev/null
  expect_interrupted twice SIGINT 130
fi
# The JSON's directory disappears during the run: the write at the end fails
# with the path and the errno text.
if start_long gone; then
  rm -rf "$tmp/gone"
  kill -INT "$pid"
  wait "$pid"
  grep -qF "flowcheck: cannot write $tmp/gone/run.json: create failed: No such file or directory" \
    "$tmp/gone.err" || fail "gone: no write error: $(cat "$tmp/gone.err")"
fi

# Controlled runs (--sched): a failure exits 1 with the schedule written and
# the JSON saying fail; a pass exits 0 with the JSON saying pass.
mkdir -p "$tmp/sched"
"$bin" --sched=pct --seed=89 --flush_handoff=false --sched_executions=20000 \
  --schedule_out="$tmp/sched/" --json_out="$tmp/sched.json" >"$tmp/sched.out" 2>"$tmp/sched.err"
rc=$?
[ "$rc" = 1 ] || fail "--sched=pct (flush hazard): exit $rc, expected 1"
[ "$(json_field "$tmp/sched.json" result)" = fail ] || fail "--sched=pct: JSON result is not fail"
[ "$(json_field "$tmp/sched.json" failure)" = "invariant no-lost-wakeup" ] ||
  fail "--sched=pct: JSON failure: $(json_field "$tmp/sched.json" failure)"
grep -qF "tools/reproduce.sh $tmp/sched/stress-pct-seed89-exec" "$tmp/sched.json" ||
  fail "--sched=pct: the JSON does not name the schedule file"
"$bin" --sched=random --seed=9 --sched_executions=20 --json_out="$tmp/sched-pass.json" \
  >"$tmp/sched-pass.out" 2>"$tmp/sched-pass.err"
rc=$?
[ "$rc" = 0 ] || fail "--sched=random: exit $rc, expected 0: $(tail -3 "$tmp/sched-pass.err")"
[ "$(json_field "$tmp/sched-pass.json" result)" = pass ] || fail "--sched=random: JSON not pass"
grep -qF "[stress] PASS: seed 9, 20 execution(s) (--sched=random)" "$tmp/sched-pass.out" ||
  fail "--sched=random: no PASS line: $(cat "$tmp/sched-pass.out")"

if [ "$fails" -ne 0 ]; then echo "$fails failure(s)"; exit 1; fi
echo "PASS: stress_main's command line, JSON and signals"
