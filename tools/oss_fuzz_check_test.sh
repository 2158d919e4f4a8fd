#!/usr/bin/env bash
# tools/oss_fuzz_check_test.sh: the checks of tools/oss_fuzz_check.sh on
# fabricated $OUT directories (no Bazel, no compiler): a complete $OUT
# passes and the stand-in fuzzer receives the corpus, the dictionary and the
# [libfuzzer] options as ClusterFuzz passes them; dropping any one expected
# file, an options file without [libfuzzer], or a target that crashes on its
# seeds fails with the one line naming it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CHECK="$ROOT/tools/oss_fuzz_check.sh"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
n=0
die() { echo "oss_fuzz_check_test: FAIL: $*" >&2; exit 1; }

# A stand-in fuzz target: records its arguments, exits as FAKE_EXIT says.
make_out() {
  local out="$1" t
  rm -rf "$out"; mkdir -p "$out" "$tmp/seeds/corpus"
  echo seed > "$tmp/seeds/corpus/seed-1"
  for t in alpha_fuzz beta_fuzz; do
    cat > "$out/$t" <<'SH'
#!/usr/bin/env bash
printf '%s\n' "$@" > "$0.args"
echo "stat::number_of_executed_units: 42"
exit "${FAKE_EXIT:-0}"
SH
    chmod +x "$out/$t"
    (cd "$tmp/seeds" && zip -q -r "$out/${t}_seed_corpus.zip" corpus)
    echo '"kw"' > "$out/$t.dict"
    printf '[libfuzzer]\nmax_len = 405\nuse_value_profile=1\n' > "$out/$t.options"
  done
}

expect() {  # expect EXIT PATTERN [env...] -- runs the check on $tmp/out
  local want="$1" pattern="$2"; shift 2
  local rc=0
  env "$@" "$CHECK" --verify="$tmp/out" --targets=alpha_fuzz,beta_fuzz --seconds=1 \
    > "$tmp/log" 2>&1 || rc=$?
  [ "$rc" = "$want" ] || { cat "$tmp/log" >&2; die "exit $rc, want $want ($pattern)"; }
  grep -q -- "$pattern" "$tmp/log" || { cat "$tmp/log" >&2; die "no line matching: $pattern"; }
  n=$((n + 1))
}

make_out "$tmp/out"
expect 0 "oss_fuzz_check: PASS"
args="$(cat "$tmp/out/alpha_fuzz.args")"
for a in -max_total_time=1 -dict="$tmp/out/alpha_fuzz.dict" -max_len=405 -use_value_profile=1; do
  grep -qx -- "$a" <<< "$args" || die "the target was not run with $a: $args"
done
corpus_dir="$(tail -1 <<< "$args")"
[ "$(basename "$corpus_dir")" = alpha_fuzz ] || die "last argument is not the unpacked corpus: $corpus_dir"
n=$((n + 1))

for f in beta_fuzz beta_fuzz_seed_corpus.zip beta_fuzz.dict beta_fuzz.options; do
  make_out "$tmp/out"; rm "$tmp/out/$f"
  expect 1 "FAIL \[missing\] verify: \$OUT/$f (target beta_fuzz) was not written"
done

make_out "$tmp/out"; printf 'max_len = 405\n' > "$tmp/out/alpha_fuzz.options"
expect 1 "FAIL \[missing\] verify: \$OUT/alpha_fuzz.options has no \[libfuzzer\] section"

make_out "$tmp/out"; chmod -x "$tmp/out/alpha_fuzz"
expect 1 "FAIL \[missing\] verify: \$OUT/alpha_fuzz is not executable"

make_out "$tmp/out"
expect 1 "FAIL \[crash\] verify: alpha_fuzz exited 77 on its seed corpus" FAKE_EXIT=77

echo "oss_fuzz_check_test: PASS ($n checks)"
