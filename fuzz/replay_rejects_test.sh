#!/usr/bin/env bash
# //fuzz:replay_rejects_test: a committed input that no decoder accepts fails
# the regression test and is named; it never "passes" by running nothing.
# Runs the reserve_fuzz regression test's own binary (the replay driver of
# every config, bazel/fuzz_replay_main.cc) on scratch corpora:
#   a good seed alone                      -> exit 0 (the control);
#   the seed + a fabricated version-0 file -> exit 1, the file named;
#   likewise a version no decoder has yet, and a flow input in the reserve corpus.
# Args: the reserve_fuzz test binary, a reserve_fuzz seed.
set -uo pipefail
replay=$1 seed=$2
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# corpus NAME: a scratch corpus holding a copy of the good seed.
corpus() { mkdir -p "$tmp/$1"; cp "$seed" "$tmp/$1/seed"; echo "$tmp/$1"; }

dir=$(corpus good)
out=$("$replay" "$dir" 2>&1); rc=$?
[ "$rc" = 0 ] || fail "the good seed alone: exit $rc, expected 0:"$'\n'"$out"
grep -qF "replay: 2 input(s) OK" <<<"$out" || fail "no OK line for the good seed:"$'\n'"$out"

# rejected NAME BYTES: the scratch corpus with a file NAME of BYTES (printf
# format) must fail, naming that file and only it.
rejected() {
  local name=$1 bytes=$2 dir out rc
  dir=$(corpus "case-$name")
  printf "$bytes" >"$dir/$name"
  out=$("$replay" "$dir" 2>&1); rc=$?
  [ "$rc" = 1 ] || fail "$name: exit $rc, expected 1:"$'\n'"$out"
  grep -qF "replay: REJECTED $dir/$name: the target returned -1: no decoder accepts it" <<<"$out" ||
    fail "$name: not named as rejected:"$'\n'"$out"
  grep -qF "replay: FAIL: 1 of 2 input(s) rejected:" <<<"$out" ||
    fail "$name: no FAIL summary, or the good seed was rejected too:"$'\n'"$out"
}

rejected v0-input 'R\x00\x00\x00\x05\x00\x00\x00'   # version 0: a reserve(5) record
rejected v2-input 'R\x02\x05\x00\x00\x00\x00\x00'   # a version this build has no decoder for
rejected flow-input 'F\x01\x00\x00\x00\x00\x00\x00\x00'  # another target's input

[ "$fails" = 0 ] && echo "replay_rejects_test: all checks passed"
exit $((fails > 0))
