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
tools/bootstrap.sh
tools/lint.sh
python3 tools/selftest.py --check   # every injected-bug patch still applies
python3 tools/selftest_test.py      # the self-test runner's own unit tests
python3 tools/flowcheck_tools_test.py  # the tools' shared module
python3 tools/corpus_test.py        # a kill at any moment of a corpus merge loses nothing
python3 tools/campaign_test.py      # the campaign end to end, with stand-ins for bazel and the binaries
tools/oss_fuzz_check_test.sh        # the OSS-Fuzz output checks on fabricated $OUT directories
python3 tools/coverage_test.py      # the coverage summary's figures and format
python3 tools/docs_links_test.py    # every link in README.md and docs/ resolves

echo "=== bazel test //... (default config)"
bazel test //... "$@"
echo "=== bazel test --config=tsan //... (ThreadSanitizer)"
bazel test --config=tsan //... "$@"

echo "=== bazel test --config=upstream --config=tsan //... (the kernel's tid_rdma.c functions)"
bazel test --config=upstream --config=tsan //... "$@"
echo "=== bazel test --config=upstream --config=tsan //... on linux-source-6.12 (a second real tree)"
bazel test --config=upstream --config=tsan \
  --repo_env=FLOWCHECK_KERNEL_SRC=third_party/src/linux-hfi1-6.12 //... "$@"
echo "=== upstream/prove_real_text.sh (a changed kernel text fails a test)"
upstream/prove_real_text.sh --config=tsan "$@"

# The hfi2 driver profile (upstream/profiles/hfi2.profile) without the hfi2
# tree: an hfi2-shaped tid_rdma.c generated from Debian's hfi1 text (git-ignored).
hfi2_tree=third_party/src/hfi2-generated
echo "=== upstream/hfi2_shaped.py -> $hfi2_tree (hfi2-shaped text from hfi1's)"
python3 upstream/hfi2_shaped.py --profile=upstream/profiles/hfi2.profile --out="$hfi2_tree" \
  --hfi1=third_party/src/linux-hfi1/drivers/infiniband/hw/hfi1/tid_rdma.c
echo "=== bazel test --config=upstream_hfi2 //... (the hfi2 profile on the generated text)"
bazel test --config=upstream_hfi2 "--repo_env=FLOWCHECK_KERNEL_SRC=$hfi2_tree" //... "$@"
echo "=== bazel test --config=upstream_hfi2 --config=tsan //... (the same under ThreadSanitizer)"
bazel test --config=upstream_hfi2 --config=tsan "--repo_env=FLOWCHECK_KERNEL_SRC=$hfi2_tree" //... "$@"

echo "=== tools/oss_fuzz_check.sh (.clusterfuzzlite/build.sh in an emulated OSS-Fuzz environment)"
tools/oss_fuzz_check.sh
echo "=== tools/coverage.sh on a tiny corpus (report written, summary line parses)"
python3 tools/coverage_test.py --run-script ScriptTest

echo "=== all tests passed in the default config, under TSan, in upstream mode under TSan, with the hfi2 profile and in the emulated OSS-Fuzz build ($(( $(date +%s) - start )) s)"
