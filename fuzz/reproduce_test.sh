#!/usr/bin/env bash
# //fuzz:reproduce_test: the reproduce command's contract.
#   unusable input (missing, directory, empty, truncated, foreign, unknown
#   version, wrong --target) -> exit 2 and a message on stderr saying which;
#   a passing input -> exit 0 and "PASSES"; a failing one -> exit 1, the
#   failing step, the bitmaps, the same output 10 times out of 10;
#   --emit_gtest writes exactly the committed source, whose compiled test
#   fails the same way; it refuses to overwrite the input (exit 2), reports
#   a write failure with the path and errno text (exit 4), leaves no
#   temporary file, and a file name with a newline changes one comment line;
#   a 10 GB input is not read whole: the ops past the cap are only counted.
# Args: reproduce binary, failing input (fails with --strict only), its
# committed emitted source, the compiled emitted test, a passing input.
set -uo pipefail
repro=$1 failing=$2 golden=$3 emitted_test=$4 passing=$5
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect CODE MESSAGE ARGS...: exit code and a line of output: on stdout for
# exit 0 and 1 (the listing, the trace, the report), on stderr otherwise.
expect() {
  local code=$1 msg=$2; shift 2
  local out err rc
  out=$("$repro" "$@" 2>"$tmp/stderr"); rc=$?
  err=$(cat "$tmp/stderr")
  [ "$rc" = "$code" ] || fail "reproduce $*: exit $rc, expected $code. Output:"$'\n'"$out$err"
  if [ "$code" -le 1 ]; then
    grep -qF -- "$msg" <<<"$out" || fail "reproduce $*: no '$msg' on stdout:"$'\n'"$out"
  else
    grep -qF -- "$msg" <<<"$err" || fail "reproduce $*: no '$msg' on stderr:"$'\n'"$err"
    grep -qF -- "$msg" <<<"$out" && fail "reproduce $*: the error '$msg' went to stdout"
  fi
}

: >"$tmp/empty"
printf 'R' >"$tmp/truncated"
printf 'F\x01\x00' >"$tmp/truncated_flow"
printf '\x7fELF\x02\x01' >"$tmp/foreign"
printf 'P\x07' >"$tmp/future"
expect 2 "cannot read $tmp/missing: No such file or directory" "$tmp/missing"
expect 2 "is not a regular file" "$tmp"
expect 2 "the input is empty (0 bytes)" "$tmp/empty"
expect 2 "truncated reserve_fuzz input: 1 byte(s), its header alone takes 2" "$tmp/truncated"
expect 2 "truncated flow_fuzz input: 3 byte(s), its header alone takes 5" "$tmp/truncated_flow"
expect 2 "not a flowcheck fuzz input: the first byte is 0x7f" "$tmp/foreign"
expect 2 "pure_fuzz input of format version 7" "$tmp/future"
expect 2 "the file is a flow_fuzz input (header 'F'), not reserve_fuzz" --target=reserve_fuzz "$failing"
expect 2 "unknown --target nope_fuzz" --target=nope_fuzz "$failing"
expect 2 "unknown flag --frobnicate" --frobnicate "$failing"
expect 2 "no input file"

# Passing inputs: exit 0, said so; the R-1 input passes without --strict.
expect 0 "result: the input PASSES" "$passing"
expect 0 "--strict makes them failures" --target=flow_fuzz "$failing"

# The failing input: exit 1, the op list, the trace, the failing step, bitmaps.
expect 1 "  #2   flush_wait(qp#0)" --strict "$failing"
expect 1 "  #1   rarr_wait(qp#0) -> model 0, oracle 0   flow_mask 0x00000001 -> 0x00000001" --strict "$failing"
expect 1 "flowcheck: FAIL [invariant W5] flow_fuzz op #2 flush_wait(qp#0)" --strict "$failing"
expect 1 "  flow_mask before: model     0x00000001 [#...............................]" --strict "$failing"
expect 1 "  flow_mask after:  model     0x00000001 [#...............................]" --strict "$failing"
expect 1 "result: REPRODUCED at op #2 after 3 call(s) (exit 1)" --strict "$failing"

# 10 out of 10: byte-identical output.
"$repro" --strict "$failing" >"$tmp/run0" 2>&1
for i in 1 2 3 4 5 6 7 8 9 10; do
  "$repro" --strict "$failing" >"$tmp/run$i" 2>&1
  cmp -s "$tmp/run0" "$tmp/run$i" || fail "run $i differs from run 0: $(diff "$tmp/run0" "$tmp/run$i")"
done

# --emit_gtest: the committed source is exactly what reproduce writes (the
# input's basename is the test name, so copy it under its own name) ...
cp "$failing" "$tmp/$(basename "$failing")"
"$repro" --strict --emit_gtest="$tmp/emitted.cc" "$tmp/$(basename "$failing")" >/dev/null
cmp -s "$golden" "$tmp/emitted.cc" || fail "emitted source differs from $golden:"$'\n'"$(diff "$golden" "$tmp/emitted.cc")"
# ... and, compiled, it fails the same way without libFuzzer.
# Without the outer test's XML_OUTPUT_FILE: the inner gtest would write its
# (expected) failure into this test's test.xml, and Bazel would count a
# failing test case in a green run.
out=$(env -u XML_OUTPUT_FILE -u GTEST_OUTPUT "$emitted_test" 2>&1); rc=$?
[ "$rc" != 0 ] || fail "the emitted test passed; it must fail while the failure reproduces"
grep -qF "flowcheck: FAIL [invariant W5] flow_fuzz op #2 flush_wait(qp#0)" <<<"$out" ||
  fail "the emitted test did not fail with the same report:"$'\n'"$out"

# --emit_gtest never overwrites its own input: not by name, not through a link.
cp "$passing" "$tmp/crash-self"
ln -sf "$tmp/crash-self" "$tmp/link-to-self"
expect 2 "--emit_gtest=$tmp/crash-self is the input file itself; refusing to overwrite it" \
  --emit_gtest="$tmp/crash-self" "$tmp/crash-self"
expect 2 "is the input file itself" --emit_gtest="$tmp/link-to-self" "$tmp/crash-self"
cmp -s "$passing" "$tmp/crash-self" || fail "--emit_gtest overwrote its input"

# A write failure names the path and errno text, exit 4; a success leaves no
# temporary file next to the one it wrote.
expect 4 "cannot write $tmp/no-such-dir/x.cc: create failed: No such file or directory" \
  --emit_gtest="$tmp/no-such-dir/x.cc" "$passing"
mkdir -p "$tmp/out"
expect 0 "wrote the GoogleTest case $tmp/out/x_test.cc" --emit_gtest="$tmp/out/x_test.cc" "$passing"
[ "$(ls -A "$tmp/out")" = "x_test.cc" ] || fail "left beside the emitted file: $(ls -A "$tmp/out")"

# A file name with a newline (and a trigraph, a backslash) changes one comment
# line, escaped, and the test's name: the emitted source compiles like any.
weird=$tmp/$'crash-a\nint x = ;??=\\'
cp "$passing" "$weird"
cp "$passing" "$tmp/crash-plain"
"$repro" --emit_gtest="$tmp/weird.cc" "$weird" >/dev/null || fail "emit for a weird name failed"
"$repro" --emit_gtest="$tmp/plain.cc" "$tmp/crash-plain" >/dev/null || fail "emit failed"
line1=$(head -1 "$tmp/weird.cc")
[ "$line1" = '// Generated by `tools/reproduce.sh --emit_gtest=...` from crash-a\x0aint x = ;\x3f\x3f=\x5c.' ] ||
  fail "first line of the source for a weird name: $line1"
diff <(tail -n +2 "$tmp/weird.cc" | sed 's/^TEST(FlowcheckReproduce, .*) {$/TEST/') \
  <(tail -n +2 "$tmp/plain.cc" | sed 's/^TEST(FlowcheckReproduce, .*) {$/TEST/') >/dev/null ||
  fail "the sources for a weird and a plain name differ beyond line 1 and the test name"

# 10 GB (sparse): only what the decoder uses is read; the rest is counted.
printf 'R\x01' >"$tmp/huge"
truncate -s 10G "$tmp/huge"
records=$(( (10737418240 - 2) / 6 ))
expect 0 "reproduce: $tmp/huge (10737418240 bytes)" "$tmp/huge"
expect 0 "512 op(s), 2 trailing byte(s) ignored, $((records - 512)) record(s) beyond the 512-op cap ignored" "$tmp/huge"
rm -f "$tmp/huge"

[ "$fails" = 0 ] && echo "reproduce_test: all checks passed"
exit $((fails > 0))
