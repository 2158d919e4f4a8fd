#!/usr/bin/env bash
# shard_test.sh BINARY: one shard of an exploration split over Bazel's test
# sharding (sched/BUILD gives this test a shard_count). sched::Run reads
# TEST_TOTAL_SHARDS / TEST_SHARD_INDEX, touches TEST_SHARD_STATUS_FILE and
# explores its part: dfs, every schedule of bitmap_alloc (atomic, 3 threads)
# of its units. //sched:dfs_count_test proves the parts exact (disjoint, and
# together the whole); here each shard must exhaust its part and say which.
set -uo pipefail
bin="$1"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
"$bin" --scenario=bitmap_alloc --param=variant=atomic --param=threads=3 --strategy=dfs \
  --max_preemptions=2 --quiet >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
if [ -n "${TEST_TOTAL_SHARDS:-}" ]; then
  want="(shard ${TEST_SHARD_INDEX} of ${TEST_TOTAL_SHARDS}), space exhausted"
  [ -e "${TEST_SHARD_STATUS_FILE:-/nonexistent}" ] || { echo "FAIL: status file not touched"; exit 1; }
else
  want="space exhausted"
fi
grep -qF -- "$want" "$out" || { echo "FAIL: no line with '$want'"; exit 1; }
echo "ok: $want"
