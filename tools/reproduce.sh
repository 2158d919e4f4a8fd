#!/usr/bin/env bash
# tools/reproduce.sh: replays a fuzz input and shows what it does and where it
# fails (the command tools/campaign.sh prints for every crash).
#
#   tools/reproduce.sh [--config=asan|tsan] [--target=NAME] [--strict]
#                      [--emit_gtest=PATH] FILE
#
# Builds //fuzz:reproduce (default config, or the one given: under asan a
# memory error in the model is reported as such) and runs it on FILE: the
# decoded ops one per line, a trace of every call, and on failure the failing
# step, the oracle differences or violated invariants, and the flow_mask
# before and after.
# Exit 1 reproduced, 0 the input passes, 2 unusable input (or flags, or
# --emit_gtest naming FILE itself), 3 //fuzz:reproduce could not be built,
# 4 the GoogleTest file could not be written. Errors go to stderr.
# --strict: upstream divergences fail too (crash files of a campaign run with
# FLOWCHECK_FUZZ_STRICT=1). --emit_gtest=PATH: also write a GoogleTest case.
# Relative paths are taken from the directory you run it in.
# --signature [--strict] [--target=NAME] FILE: prints FILE's crash signature,
# one line, as the campaign groups crashes (tools/signature.py).
set -euo pipefail
here=$(pwd)
for a in "$@"; do
  [ "$a" != --signature ] || exec python3 "$(dirname "${BASH_SOURCE[0]}")/signature.py" "$@"
done
cd "$(dirname "${BASH_SOURCE[0]}")/.."

config=()
args=()
for a in "$@"; do
  case "$a" in
    --config=*) config=("$a") ;;
    --emit_gtest=/*) args+=("$a") ;;
    --emit_gtest=?*) args+=("--emit_gtest=$here/${a#--emit_gtest=}") ;;
    -*) args+=("$a") ;;
    /*) args+=("$a") ;;
    *) args+=("$here/$a") ;;
  esac
done

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! bazel build "${config[@]}" --ui_event_filters=-info,-stdout --noshow_progress \
    //fuzz:reproduce 2>"$log"; then
  cat "$log" >&2
  echo "reproduce.sh: building //fuzz:reproduce failed (exit 3; the input was not read)" >&2
  exit 3
fi
if ! bin_dir=$(bazel info "${config[@]}" bazel-bin 2>"$log"); then
  cat "$log" >&2
  echo "reproduce.sh: bazel info bazel-bin failed (exit 3; the input was not read)" >&2
  exit 3
fi
exec "$bin_dir/fuzz/reproduce" "${args[@]}"
