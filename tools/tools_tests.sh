#!/usr/bin/env bash
# tools/tools_tests.sh: the tools' own tests, no Bazel build (tools/test.sh
# runs them first; each is also runnable alone).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python3 tools/selftest.py --check      # every injected-bug patch still applies
python3 tools/selftest_test.py         # the self-test runner's own unit tests
python3 tools/flowcheck_tools_test.py  # the tools' shared module
python3 tools/corpus_test.py           # a kill at any moment of a corpus merge loses nothing
python3 tools/campaign_test.py         # the campaign end to end, with stand-ins for bazel and the binaries
tools/oss_fuzz_check_test.sh           # the OSS-Fuzz output checks on fabricated $OUT directories
python3 tools/coverage_test.py         # the coverage summary's figures and format
python3 tools/docs_links_test.py       # every link in README.md and docs/ resolves
