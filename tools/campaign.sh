#!/usr/bin/env bash
# tools/campaign.sh: the README's main command, a bounded fuzz + stress campaign.
#
#   tools/campaign.sh [--seconds=120] [--jobs=N] [--targets=a,b] [--no-stress] ...
#
# Installs whatever is missing (tools/bootstrap.sh), then runs tools/campaign.py
# (its --help lists every option) in the directory you ran this in, so that a
# relative --out is yours. Corpora persist in the git-ignored out/.
set -euo pipefail
tools="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$tools/bootstrap.sh"
exec python3 "$tools/campaign.py" "$@"
