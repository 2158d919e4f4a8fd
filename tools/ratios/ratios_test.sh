#!/usr/bin/env bash
# Runs ratios_test.py (the runner's unit tests) from the test's runfiles.
set -euo pipefail
exec python3 "$(dirname "$0")/ratios_test.py"
