#!/usr/bin/env bash
# tools/test.sh: the README's test command (and CI's, via .ci/run).
# Installs whatever is missing (tools/bootstrap.sh), then runs every test in
# the default config and under ThreadSanitizer, then in upstream mode (the
# kernel's own tid_rdma.c functions, docs/upstream.md) under ThreadSanitizer
# with the proof that a changed kernel text fails. Extra arguments are passed
# to every `bazel test` run, e.g. tools/test.sh --test_output=all.
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

echo "=== bazel test //... (default config)"
bazel test //... "$@"
echo "=== bazel test --config=tsan //... (ThreadSanitizer)"
bazel test --config=tsan //... "$@"

echo "=== bazel test --config=upstream --config=tsan //... (the kernel's tid_rdma.c functions)"
bazel test --config=upstream --config=tsan //... "$@"
echo "=== upstream/prove_real_text.sh (a changed kernel text fails a test)"
upstream/prove_real_text.sh --config=tsan "$@"

echo "=== tools/oss_fuzz_check.sh (.clusterfuzzlite/build.sh in an emulated OSS-Fuzz environment)"
tools/oss_fuzz_check.sh
echo "=== tools/coverage.sh on a tiny corpus (report written, summary line parses)"
python3 tools/coverage_test.py --run-script ScriptTest

echo "=== all tests passed in the default config, under TSan and in upstream mode under TSan ($(( $(date +%s) - start )) s)"
