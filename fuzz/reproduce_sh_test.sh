#!/usr/bin/env bash
# //fuzz:reproduce_sh_test: tools/reproduce.sh's own contract, with a stand-in
# `bazel` first on PATH (a test cannot run Bazel inside Bazel):
#   the build fails            -> exit 3 (never 2, "unusable input"), the build
#                                 log and the reason on stderr, nothing run;
#   bazel info fails           -> exit 3 likewise;
#   it builds                  -> runs //fuzz:reproduce with paths taken from
#                                 the caller's directory, its exit code kept;
#   --emit_gtest=F F           -> exit 2, F untouched.
# Args: tools/reproduce.sh, the reproduce binary, a failing input (--strict).
set -uo pipefail
script=$(readlink -f "$1") repro=$(readlink -f "$2") failing=$(readlink -f "$3")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir -p "$tmp/fakebin" "$tmp/bazel-bin/fuzz" "$tmp/work"
ln -sf "$repro" "$tmp/bazel-bin/fuzz/reproduce"
cat >"$tmp/fakebin/bazel" <<FAKE
#!/usr/bin/env bash
case "\$1" in
  build) [ -n "\${FAKE_BUILD_FAILS:-}" ] && { echo "ERROR: fuzz/BUILD: a broken build" >&2; exit 1; }; exit 0 ;;
  info) [ -n "\${FAKE_INFO_FAILS:-}" ] && { echo "ERROR: no server" >&2; exit 2; }; echo "$tmp/bazel-bin" ;;
  *) exit 64 ;;
esac
FAKE
chmod +x "$tmp/fakebin/bazel"
cp "$failing" "$tmp/work/crash-r1"

# run ENV... -- ARGS...: runs the script from $tmp/work; sets rc, out, err.
run() {
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  (cd "$tmp/work" && env PATH="$tmp/fakebin:$PATH" "${envs[@]}" "$script" "$@") \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out") err=$(cat "$tmp/err")
}

run FAKE_BUILD_FAILS=1 -- --strict crash-r1
[ "$rc" = 3 ] || fail "a failed build: exit $rc, expected 3"
grep -qF "ERROR: fuzz/BUILD: a broken build" <<<"$err" || fail "no build log on stderr: $err"
grep -qF "reproduce.sh: building //fuzz:reproduce failed" <<<"$err" || fail "no reason on stderr: $err"
[ -z "$out" ] || fail "a failed build printed on stdout: $out"

run FAKE_INFO_FAILS=1 -- --strict crash-r1
[ "$rc" = 3 ] || fail "a failed bazel info: exit $rc, expected 3"
grep -qF "reproduce.sh: bazel info bazel-bin failed" <<<"$err" || fail "no reason on stderr: $err"

run -- --strict crash-r1
[ "$rc" = 1 ] || fail "the failing input: exit $rc, expected 1 (stderr: $err)"
grep -qF "reproduce: $tmp/work/crash-r1 (21 bytes), strict" <<<"$out" ||
  fail "the relative path was not taken from the caller's directory: $out"
grep -qF "result: REPRODUCED at op #2 after 3 call(s) (exit 1)" <<<"$out" || fail "no result: $out"

run -- --strict --emit_gtest=r1_test.cc crash-r1
[ "$rc" = 1 ] && [ -f "$tmp/work/r1_test.cc" ] || fail "--emit_gtest=r1_test.cc: exit $rc, or no $tmp/work/r1_test.cc"

run -- --emit_gtest=crash-r1 crash-r1
[ "$rc" = 2 ] || fail "--emit_gtest=F F: exit $rc, expected 2"
grep -qF "is the input file itself; refusing to overwrite it" <<<"$err" || fail "no refusal on stderr: $err"
cmp -s "$failing" "$tmp/work/crash-r1" || fail "--emit_gtest=F F changed F"

[ "$fails" = 0 ] && echo "reproduce_sh_test: all checks passed"
exit $((fails > 0))
