#!/usr/bin/env bash
# tools/measure_build.sh [config...]: measures, per Bazel config, the cold build
# time of //... (a fresh clone of HEAD, a throw-away output base, no disk
# cache: nothing reused) and the warm `bazel test //...` time right after it
# (everything built, test results not cached). Prints a Markdown table;
# configs default to "default tsan asan fuzz". Takes several minutes; run it
# on an idle machine.
#
# tools/measure_build.sh --test_command: the README's test command from
# nothing: `.ci/run` in a fresh clone of HEAD with an empty disk cache and a
# new output base (the Debian packages stay installed; the sources are
# unpacked again). Prints the CPU, a reference job's time (the VM's speed that
# hour), tools/test.sh's time per step and the wall
# time (docs/build.md, "The test command from nothing").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ "${1:-}" = --test_command ]; then
  base="$(mktemp -d /tmp/flowcheck-measure.XXXXXX)"
  git clone -q . "$base/src"
  mkdir "$base/cache"
  echo "build --disk_cache=$base/cache" >"$base/src/.bazelrc.local"
  echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs," \
    "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  # The same VM runs the same commit 10-20% faster or slower from hour to
  # hour: a fixed single-core job timed before the run says how fast it was.
  ref=/usr/src/linux-source-6.1.tar.xz
  if [ -r "$ref" ]; then
    /usr/bin/time -f '%e' -o "$base/ref" xz -dc "$ref" >/dev/null
    echo "reference: xz -dc $ref took $(tail -n 1 "$base/ref") s (one core)"
  fi
  rc=0
  (cd "$base/src" && /usr/bin/time -f '%e' -o "$base/wall" bash .ci/run >"$base/run.log" 2>&1) || rc=$?
  sed -n '/^=== time per step/,$p' "$base/run.log"
  echo "wall time (/usr/bin/time): $(cat "$base/wall" | tail -n 1) s; exit $rc"
  (cd "$base/src" && bazel shutdown >/dev/null 2>&1) || true
  ((rc == 0)) && rm -rf "$base" || echo "the log: $base/run.log"
  exit "$rc"
fi
configs=("$@")
((${#configs[@]})) || configs=(default tsan asan fuzz)

tools/bootstrap.sh >/dev/null 2>&1
base="$(mktemp -d /tmp/flowcheck-measure.XXXXXX)"
trap '(cd "$base/src" 2>/dev/null && bazel --output_base="$base/ob" shutdown >/dev/null 2>&1); rm -rf "$base"' EXIT
# A clean clone: no bazel-* symlinks of another output base, only committed files.
git clone -q . "$base/src"
cp .bazelrc.host "$base/src/" 2>/dev/null || true
mkdir -p "$base/src/third_party" && ln -s "$PWD/third_party/src" "$base/src/third_party/src"
cd "$base/src"

echo "| config | cold \`bazel build //...\` | warm \`bazel test //...\` | tests |"
echo "|---|---|---|---|"
for c in "${configs[@]}"; do
  cfg=(); [ "$c" = default ] || cfg=("--config=$c")
  rm -rf "$base/ob"
  t0=$(date +%s.%N)
  bazel --output_base="$base/ob" build "${cfg[@]}" --disk_cache= //... >"$base/build.log" 2>&1 \
    || { echo "build failed for $c:"; tail -20 "$base/build.log"; exit 1; }
  t1=$(date +%s.%N)
  bazel --output_base="$base/ob" test "${cfg[@]}" --disk_cache= --nocache_test_results //... \
    >"$base/test.log" 2>&1 || { echo "tests failed for $c:"; tail -20 "$base/test.log"; exit 1; }
  t2=$(date +%s.%N)
  n=$(grep -oE 'Executed [0-9]+ out of [0-9]+ test' "$base/test.log" | tail -1 | awk '{print $5}')
  awk -v c="$c" -v a="$t0" -v b="$t1" -v d="$t2" -v n="${n:-?}" \
    'BEGIN { printf "| %s | %.0f s | %.1f s | %s |\n", c, b - a, d - b, n }'
  bazel --output_base="$base/ob" shutdown >/dev/null 2>&1 || true
done
