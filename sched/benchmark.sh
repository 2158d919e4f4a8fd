#!/usr/bin/env bash
# sched/benchmark.sh [EXECUTIONS]: controlled executions/s of the benchmark
# scenario (2 threads x 4 lock ops, random strategy) in the default build
# (fastbuild, as `bazel test //...` builds it) and under --config=tsan, with
# both backends and against the same work run uncontrolled in the same
# process; PASS/FAIL against the goals (fiber backend: >= 1000 executions/s
# default, >= 200 under TSan). Wall-clock figures on a shared machine: run it
# on a quiet one and read the ratios.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
executions="${1:-2000}"
fail=0
for config in default tsan; do
  flags=()
  [ "$config" = tsan ] && flags=(--config=tsan)
  echo "=== building //sched:sched_benchmark ($config)"
  if ! log=$(bazel build "${flags[@]}" //sched:sched_benchmark 2>&1); then
    echo "$log" | tail -30
    exit 1
  fi
  bin="$(bazel info "${flags[@]}" bazel-bin 2>/dev/null)/sched/sched_benchmark"
  out=$("$bin" "$executions")
  echo "$out"
  rate=$(echo "$out" | awk '/^2 threads x 4/ {getline; print int($4); exit}')
  goal=1000
  [ "$config" = tsan ] && goal=200
  if [ "$rate" -ge "$goal" ]; then
    echo "$config: fiber backend $rate executions/s, goal >= $goal: PASS"
  else
    echo "$config: fiber backend $rate executions/s, goal >= $goal: FAIL"
    fail=1
  fi
done
exit "$fail"
