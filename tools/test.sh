#!/usr/bin/env bash
# tools/test.sh: the README's test command (and CI's, via .ci/run).
# Installs whatever is missing (tools/bootstrap.sh), then runs every test in
# the default config and under ThreadSanitizer, then in upstream mode (the
# kernel's own tid_rdma.c functions, docs/upstream.md) under ThreadSanitizer
# on Debian's 6.1 and 6.12 texts, with the proof that a changed kernel text fails, then with the hfi2 driver
# profile on an hfi2-shaped text generated from hfi1's (default and TSan).
# Extra arguments are passed to every `bazel test` run, e.g.
# tools/test.sh --test_output=all.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

start=$(date +%s)
# Every step is timed; the breakdown is printed at the end, or where a step
# failed (docs/build.md records it for a fresh machine).
times=()
step() {
  local name="$1" t0 rc=0
  shift
  echo "=== $name"
  t0=$(date +%s)
  "$@" || rc=$?
  times+=("$(printf '%5d s  %s' $(( $(date +%s) - t0 )) "$name")")
  if ((rc != 0)); then
    breakdown
    echo "=== FAILED: $name (exit $rc)"
    exit "$rc"
  fi
}
breakdown() {
  echo "=== time per step (tools/test.sh)"
  printf '  %s\n' "${times[@]}"
  echo "  $(( $(date +%s) - start )) s in all"
}
step "tools/bootstrap.sh (packages, sources)" tools/bootstrap.sh
step "tools/lint.sh" tools/lint.sh
step "the tools' own tests (self-test patches, runner, corpus, campaign, OSS-Fuzz checks, coverage, docs links)" \
  tools/tools_tests.sh

step "bazel test //... (default config)" bazel test //... "$@"
step "bazel test --config=tsan //... (ThreadSanitizer)" bazel test --config=tsan //... "$@"

step "bazel test --config=upstream --config=tsan //... (the kernel's tid_rdma.c functions, 6.1)" \
  bazel test --config=upstream --config=tsan //... "$@"
step "bazel test --config=upstream --config=tsan //... on linux-source-6.12 (a second real tree)" \
  bazel test --config=upstream --config=tsan \
  --repo_env=FLOWCHECK_KERNEL_SRC=third_party/src/linux-hfi1-6.12 //... "$@"
step "upstream/prove_real_text.sh (a changed kernel text fails a test)" \
  upstream/prove_real_text.sh --config=tsan "$@"

# The hfi2 driver profile (upstream/profiles/hfi2.profile) without the hfi2
# tree: an hfi2-shaped tid_rdma.c generated from Debian's hfi1 text (git-ignored).
hfi2_tree=third_party/src/hfi2-generated
step "upstream/hfi2_shaped.py -> $hfi2_tree (hfi2-shaped text from hfi1's)" \
  python3 upstream/hfi2_shaped.py --profile=upstream/profiles/hfi2.profile --out="$hfi2_tree" \
  --hfi1=third_party/src/linux-hfi1/drivers/infiniband/hw/hfi1/tid_rdma.c
step "bazel test --config=upstream_hfi2 //... (the hfi2 profile on the generated text)" \
  bazel test --config=upstream_hfi2 "--repo_env=FLOWCHECK_KERNEL_SRC=$hfi2_tree" //... "$@"
step "bazel test --config=upstream_hfi2 --config=tsan //... (the same under ThreadSanitizer)" \
  bazel test --config=upstream_hfi2 --config=tsan "--repo_env=FLOWCHECK_KERNEL_SRC=$hfi2_tree" //... "$@"

# Each target fuzzes 2 s (the tool's default is 10): what is checked is that
# it starts as ClusterFuzz starts it and replays its seeds without a crash.
step "tools/oss_fuzz_check.sh (.clusterfuzzlite/build.sh in an emulated OSS-Fuzz environment)" \
  tools/oss_fuzz_check.sh --seconds=2
step "tools/coverage.sh on a tiny corpus (report written, summary line parses)" \
  python3 tools/coverage_test.py --run-script ScriptTest

breakdown
echo "=== all tests passed in the default config, under TSan, in upstream mode under TSan, with the hfi2 profile and in the emulated OSS-Fuzz build ($(( $(date +%s) - start )) s)"
