#!/usr/bin/env bash
# tools/oss_fuzz_check.sh: runs .clusterfuzzlite/build.sh in an emulation of
# the OSS-Fuzz build environment on this machine, offline, and checks its
# outputs the way ClusterFuzz uses them.
#
#   tools/oss_fuzz_check.sh [--sanitizers=address,undefined,coverage] [--seconds=10]
#   tools/oss_fuzz_check.sh --verify=OUT --targets=T1,T2 [--seconds=10]
#                           (only the checks, on an $OUT made elsewhere)
#
# For each sanitizer: a temporary $OUT and $WORK, $SRC = this repository,
# the compiler, flags and engine as OSS-Fuzz gives them (tools/oss_fuzz_env.sh
# says which). Then:
#   1. build.sh runs (from the repository root, as in the image);
#   2. every expected file is in $OUT: for each fuzz target Bazel knows
#      (cc_binary tagged "fuzzer", minus "no_campaign", minus those build.sh
#      reported incompatible with the build) the binary T, T_seed_corpus.zip,
#      T.dict, T.options (with a [libfuzzer] section);
#   3. each binary runs --seconds (10) on its unpacked seed zip (as many
#      binaries at once as there are CPUs), with
#      -dict=T.dict and every key = value of T.options' [libfuzzer] section
#      as -key=value, as ClusterFuzz runs it; UBSAN_OPTIONS as OSS-Fuzz sets it.
#      A coverage build is not fuzzed, as in ClusterFuzz: it replays the seeds
#      (-runs=0) and must write an LLVM profile.
# Any failure prints one "oss_fuzz_check: FAIL [build|missing|crash] ..." line
# (and the log's tail); at the end a summary and PASS, or exit 1.
# Exit: 0 pass, 1 a check failed, 2 bad usage.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=tools/oss_fuzz_env.sh
. "$ROOT/tools/oss_fuzz_env.sh"

sanitizers=address,undefined,coverage
seconds=10
verify_out=""
verify_targets=""
for a in "$@"; do
  case "$a" in
    --sanitizers=*) sanitizers="${a#*=}" ;;
    --seconds=*) seconds="${a#*=}" ;;
    --verify=*) verify_out="${a#*=}" ;;
    --targets=*) verify_targets="${a#*=}" ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "oss_fuzz_check: unknown option: $a (try --help)" >&2; exit 2 ;;
  esac
done
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "oss_fuzz_check: --seconds must be a positive integer" >&2; exit 2; }

failures=0
summary=()
fail() { echo "oss_fuzz_check: FAIL [$1] $2"; failures=$((failures + 1)); }

# The [libfuzzer] section of an options file as -key=value arguments.
options_args() {
  awk -v f="$1" '
    /^[ \t]*\[/ { sec = $0; gsub(/[ \t\[\]]/, "", sec); next }
    sec == "libfuzzer" && /=/ {
      k = $0; sub(/=.*/, "", k); gsub(/[ \t]/, "", k)
      v = $0; sub(/^[^=]*=[ \t]*/, "", v); sub(/[ \t]+$/, "", v)
      if (k != "") print "-" k "=" v
    }' "$1"
}

# verify LABEL OUT TMP TARGET...: steps 2 and 3 on OUT.
verify() {
  local label="$1" out="$2" tmp="$3"; shift 3
  local t missing=0
  for t in "$@"; do
    local f
    for f in "$t" "${t}_seed_corpus.zip" "$t.dict" "$t.options"; do
      if [ ! -f "$out/$f" ]; then
        fail missing "$label: \$OUT/$f (target $t) was not written by build.sh"
        missing=1
      fi
    done
    [ -f "$out/$t" ] && [ ! -x "$out/$t" ] && { fail missing "$label: \$OUT/$t is not executable"; missing=1; }
    [ -f "$out/$t.options" ] && ! grep -q '^\[libfuzzer\]' "$out/$t.options" \
      && { fail missing "$label: \$OUT/$t.options has no [libfuzzer] section"; missing=1; }
  done
  ((missing == 0)) || { summary+=("$label: files missing, nothing run"); return; }
  # The runs, as many at once as there are CPUs (each is one process that
  # fuzzes or replays alone); then each is judged in order.
  local jobs running=0 runnable=()
  jobs=$(nproc 2>/dev/null || echo 1)
  for t in "$@"; do
    local corpus="$tmp/corpus/$t" args=()
    mkdir -p "$corpus" "$tmp/artifacts"
    if ! unzip -q -o "$out/${t}_seed_corpus.zip" -d "$corpus"; then
      fail missing "$label: \$OUT/${t}_seed_corpus.zip does not unpack"; continue
    fi
    # Counted before the run: fuzzing adds its finds to the directory.
    find "$corpus" -type f | wc -l > "$tmp/$t.seeds"
    [ "$(cat "$tmp/$t.seeds")" -gt 0 ] \
      || { fail missing "$label: \$OUT/${t}_seed_corpus.zip is empty"; continue; }
    runnable+=("$t")
    mapfile -t args < <(options_args "$out/$t.options")
    local how=(-max_total_time="$seconds")
    # A coverage build is not fuzzed (it has no coverage feedback for
    # libFuzzer): ClusterFuzz only replays corpora through it, -runs=0.
    [ "$label" = coverage ] && how=(-runs=0)
    mkdir -p "$tmp/profiles/$t"
    echo "${how[*]}" > "$tmp/$t.how"
    echo "${args[*]}" > "$tmp/$t.args"
    ((running < jobs)) || { wait -n || true; running=$((running - 1)); }
    (cd "$tmp" && rc=0 && UBSAN_OPTIONS="${UBSAN_OPTIONS:-silence_unsigned_overflow=1}" \
      LLVM_PROFILE_FILE="$tmp/profiles/$t/%p.profraw" \
      timeout -k 5 $((seconds + 60)) "$out/$t" "${how[@]}" \
        -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 \
        -artifact_prefix="$tmp/artifacts/$t-" -dict="$out/$t.dict" "${args[@]}" "$corpus" \
        > "$tmp/$t.log" 2>&1 || rc=$?; echo "$rc" > "$tmp/$t.rc") &
    running=$((running + 1))
  done
  wait
  for t in "${runnable[@]}"; do
    local log="$tmp/$t.log" rc how args n execs
    rc=$(cat "$tmp/$t.rc") how=$(cat "$tmp/$t.how") args=$(cat "$tmp/$t.args")
    n=$(cat "$tmp/$t.seeds")
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    if ((rc != 0)); then
      fail crash "$label: $t exited $rc on its seed corpus ($n files, $how $args); log $log:"
      tail -n 30 "$log" | sed 's/^/    /'
      summary+=("$label: $t CRASH (exit $rc)")
    elif [ "$label" = coverage ] && [ -z "$(find "$tmp/profiles/$t" -name '*.profraw' -size +0)" ]; then
      fail crash "$label: $t replayed its seeds but wrote no coverage profile (not built with -fprofile-instr-generate?)"
      summary+=("$label: $t NO PROFILE")
    else
      summary+=("$label: $t ok, $n seeds, ${execs:-?} execs ($how), $args")
    fi
  done
}

finish() {
  echo "=== oss_fuzz_check summary"
  local s
  for s in "${summary[@]}"; do echo "  $s"; done
  if ((failures)); then
    echo "oss_fuzz_check: FAIL ($failures problem(s))"; exit 1
  fi
  echo "oss_fuzz_check: PASS"
}

if [ -n "$verify_out" ]; then
  [ -n "$verify_targets" ] || { echo "oss_fuzz_check: --verify needs --targets" >&2; exit 2; }
  tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
  IFS=, read -r -a ts <<< "$verify_targets"
  verify "verify" "$verify_out" "$tmp" "${ts[@]}"
  finish; exit 0
fi

cd "$ROOT"
# What Bazel knows, independently of build.sh.
mapfile -t known < <(bazel query \
  'attr(tags, "\bfuzzer\b", kind(cc_binary, //...)) except attr(tags, "\bno_campaign\b", //...)' 2>/dev/null \
  | sed -n 's/^\/\/[^:]*:\(.*\)_fuzzer$/\1/p')
((${#known[@]})) || { fail missing "bazel query found no fuzz target"; finish; }

IFS=, read -r -a sans <<< "$sanitizers"
for san in "${sans[@]}"; do
  oss_fuzz_known_sanitizer "$san" || { echo "oss_fuzz_check: unknown sanitizer: $san" >&2; exit 2; }
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/oss_fuzz_check.$san.XXXXXX")"
  echo "=== SANITIZER=$san: .clusterfuzzlite/build.sh (OUT=$tmp/out)"
  start=$(date +%s)
  rc=0
  oss_fuzz_build_sh "$san" "$tmp/out" "$tmp/work" > "$tmp/build.log" 2>&1 || rc=$?
  build_s=$(( $(date +%s) - start ))
  if ((rc != 0)); then
    fail build "SANITIZER=$san: build.sh exited $rc after ${build_s} s; log $tmp/build.log:"
    tail -n 30 "$tmp/build.log" | sed 's/^/    /'
    summary+=("$san: build FAILED"); continue
  fi
  expected=()
  for t in "${known[@]}"; do
    if grep -q "^build.sh: skipped //[^:]*:${t}_fuzzer: incompatible" "$tmp/build.log"; then
      summary+=("$san: $t skipped by build.sh (incompatible with this build)")
    else
      expected+=("$t")
    fi
  done
  summary+=("$san: build.sh ${build_s} s")
  start=$(date +%s)
  verify "$san" "$tmp/out" "$tmp" "${expected[@]}"
  summary+=("$san: runs $(( $(date +%s) - start )) s")
  ((failures)) || rm -rf "$tmp"
done
finish
