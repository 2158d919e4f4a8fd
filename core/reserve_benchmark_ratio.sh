#!/usr/bin/env bash
# core/reserve_benchmark_ratio.sh: the model's reserve + release cycle against
# a hand-written baseline doing the same work (the kernel's atomic bit
# operations on a plain atomic spinlock), for both paths of kern_reserve_flow
# (benchmark arg /0: the preferred flow is free; /1: "don't care", 16 flows
# taken). Gate: model / baseline <= LIMIT (default 1.2x); the ratio to
# non-atomic bit operations is printed for reference. tools/ratios/ratios.py
# runs //core:reserve_benchmark ROUNDS times (default 15), every benchmark 3
# times per round in random interleaved order, and takes the median over the
# rounds of each round's ratio. Run it as:
#   bazel run --config=bench //core:reserve_benchmark_ratio [-- LIMIT [ROUNDS]]
# Exit status: 0 within the limit, 1 over it, 2 could not run (or lockcheck's
# checks are compiled in: run it with --config=bench).
set -euo pipefail

runfiles="${RUNFILES_DIR:-$0.runfiles}/flowcheck"
bin="$(dirname "$0")/reserve_benchmark"
[ -x "$bin" ] || bin="$runfiles/core/reserve_benchmark"
ratios="$runfiles/tools/ratios/ratios.py"
[ -f "$ratios" ] || ratios="$(dirname "$0")/../tools/ratios/ratios.py"
limit="${1:-1.2}"
rounds="${2:-15}"

exec python3 "$ratios" \
  --title="kern_reserve_flow reserve + release cycle, --config=bench, CPU time per cycle (/0: preferred flow free, /1: don't care, 16 taken)" \
  --rounds="$rounds" \
  --ratio BM_KernReserveRelease/0 BM_RawReserveRelease/0 \
  --ratio BM_KernReserveRelease/1 BM_RawReserveRelease/1 \
  --ratio BM_KernReserveRelease/0 BM_RawPlainBitopsReserveRelease/0 \
  --ratio BM_KernReserveRelease/1 BM_RawPlainBitopsReserveRelease/1 \
  --goal "model / baseline" "$limit" '^BM_KernReserveRelease/[01] vs BM_RawReserveRelease/' \
  gbench --repetitions=3 --min_time=0.05 -- "$bin"
