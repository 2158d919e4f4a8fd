#!/usr/bin/env bash
# Runs a Python unittest file (and its arguments) with the system's python3
# (see upstream/BUILD).
set -euo pipefail
exec python3 "$@"
