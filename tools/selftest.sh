#!/usr/bin/env bash
# tools/selftest.sh: the harness's mutation self-test (see tools/selftest.py
# --help). Installs whatever is missing first. Never modifies the working tree.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tools/bootstrap.sh
exec python3 tools/selftest.py "$@"
