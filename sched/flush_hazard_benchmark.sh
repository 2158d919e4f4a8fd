#!/usr/bin/env bash
# sched/flush_hazard_benchmark.sh [SEEDS] [SECONDS]: how fast the controlled
# scheduler finds the kernel's flush hazard from scratch (no committed input):
# `stress_main --sched=pct --flush_handoff=false` under ThreadSanitizer, one
# run per seed (default seeds 1-10, at most 60 s each). Prints each seed's
# wall time to the FAIL line (or "not found") and the median over the seeds
# (a seed that did not find it counts as its whole budget). Exit 0; a
# benchmark, not a test (docs/sched.md, "Figures").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seeds="${1:-1 2 3 4 5 6 7 8 9 10}"
budget="${2:-60}"
bazel build --config=tsan --ui_event_filters=-info --noshow_progress //stress:stress_main
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$(bazel info --config=tsan bazel-bin)/stress/stress_main" "$work/stress_main"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo "flush hazard from scratch, pct, TSan build, $(nproc) CPUs ($cpu), load $(cut -d' ' -f1-3 /proc/loadavg)"
times=()
for seed in $seeds; do
  start=$(date +%s.%N)
  "$work/stress_main" --sched=pct --seed="$seed" --seconds="$budget" --flush_handoff=false \
    --schedule_out="$work/" --progress_every=0 >"$work/out" 2>&1 || true
  end=$(date +%s.%N)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  if grep -q 'FAIL \[invariant no-lost-wakeup\]' "$work/out"; then
    exec_line=$(grep -o 'exec[0-9]*\.schedule' "$work/out" | head -n 1)
    printf 'seed %-3s found in %6.1f s (%s)\n' "$seed" "$secs" "${exec_line%.schedule}"
  else
    secs=$budget
    printf 'seed %-3s not found within %s s\n' "$seed" "$budget"
  fi
  times+=("$secs")
done
median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}')
echo "median over ${#times[@]} seeds: $median s (goal: < 5 s)"
