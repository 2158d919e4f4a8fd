#!/usr/bin/env bash
# core/reserve_benchmark_ratio.sh: runs //core:reserve_benchmark once
# (repetitions interleaved at random, so a noisy neighbour hits every
# benchmark alike), takes each benchmark's median CPU time, and prints
#   model cycle / baseline cycle
# for both paths of kern_reserve_flow, PASS/FAIL against a 1.2x limit.
# The gate compares with the baseline doing the same work (the kernel's atomic
# bit operations); the ratio to non-atomic bit operations is printed for
# reference. Run it as:
#   bazel run --config=bench //core:reserve_benchmark_ratio [-- LIMIT [REPETITIONS]]
set -euo pipefail

bin="$(dirname "$0")/reserve_benchmark"
[ -x "$bin" ] || bin="${RUNFILES_DIR:-$0.runfiles}/flowcheck/core/reserve_benchmark"
limit="${1:-1.2}"
reps="${2:-15}"

csv="$("$bin" --benchmark_repetitions="$reps" --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null)"

if grep -q "checks ON" <<<"$csv"; then
  echo "FAIL: lockcheck checks are compiled in; run with --config=bench" >&2
  exit 2
fi

# name -> median cpu_time (ns)
median() { awk -F, -v n="\"$1_median\"" '$1 == n { print $4 }' <<<"$csv"; }

fail=0
printf '%-28s %10s %10s %10s %8s  %s\n' "path" "model ns" "base ns" "plain ns" "ratio" "verdict (limit ${limit}x)"
for arg in 0 1; do
  case $arg in
    0) path="preferred flow free" ;;
    1) path="don't care, 16 taken" ;;
  esac
  m="$(median "BM_KernReserveRelease/$arg")"
  b="$(median "BM_RawReserveRelease/$arg")"
  p="$(median "BM_RawPlainBitopsReserveRelease/$arg")"
  if [ -z "$m" ] || [ -z "$b" ] || [ -z "$p" ]; then
    echo "FAIL: missing benchmark output for arg $arg" >&2
    exit 2
  fi
  verdict="$(awk -v m="$m" -v b="$b" -v l="$limit" 'BEGIN { r = m / b; printf "%.3f %s", r, (r <= l ? "PASS" : "FAIL") }')"
  ratio="${verdict% *}"
  word="${verdict#* }"
  plain_ratio="$(awk -v m="$m" -v p="$p" 'BEGIN { printf "%.2f", m / p }')"
  printf '%-28s %10.2f %10.2f %10.2f %8s  %s (vs non-atomic bitops: %sx, for reference)\n' \
    "$path" "$m" "$b" "$p" "$ratio" "$word" "$plain_ratio"
  [ "$word" = PASS ] || fail=1
done
if [ "$fail" -eq 0 ]; then echo "PASS: the model's reserve + release cycle is within ${limit}x of the baseline"; fi
exit "$fail"
