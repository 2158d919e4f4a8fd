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
#
#   tools/reproduce.sh SCHEDULE_FILE
#
# A schedule file (first line "flowcheck-schedule ...", written by a
# controlled run, e.g. stress_main --sched=pct) is replayed by the binary its
# `target` line names, built in the config of its `sanitizer` line (tsan ->
# --config=tsan, asan -> --config=asan, none -> the default), as
# `TARGET --replay=FILE`: the same failure, step and trace hash. Exit 1
# reproduced, 0 it passes, 2 unusable file, 3 the build failed.
set -euo pipefail
here=$(pwd)
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

for f in "${args[@]}"; do
  case "$f" in -*) continue ;; esac
  [ -f "$f" ] && [ "$(head -c 19 "$f")" = "flowcheck-schedule " ] || continue
  target=$(sed -n 's/^target //p' "$f" | head -n 1)
  sanitizer=$(sed -n 's/^sanitizer //p' "$f" | head -n 1)
  if ! [[ "$target" =~ ^//[A-Za-z0-9_/.-]*:[A-Za-z0-9_.-]+$ ]]; then
    echo "reproduce.sh: $f: no usable 'target //pkg:name' line (exit 2)" >&2
    exit 2
  fi
  case "$sanitizer" in
    tsan) sconfig=(--config=tsan) ;;
    asan) sconfig=(--config=asan) ;;
    none) sconfig=() ;;
    *) echo "reproduce.sh: $f: 'sanitizer' must be tsan, asan or none, not '$sanitizer' (exit 2)" >&2
       exit 2 ;;
  esac
  if ! bazel build "${sconfig[@]}" --ui_event_filters=-info,-stdout --noshow_progress \
      "$target" 2>"$log"; then
    cat "$log" >&2
    echo "reproduce.sh: building $target failed (exit 3; the schedule was not replayed)" >&2
    exit 3
  fi
  if ! bin_dir=$(bazel info "${sconfig[@]}" bazel-bin 2>"$log"); then
    cat "$log" >&2
    echo "reproduce.sh: bazel info bazel-bin failed (exit 3; the schedule was not replayed)" >&2
    exit 3
  fi
  pkg=${target#//}
  exec "$bin_dir/${pkg%%:*}/${pkg#*:}" --replay="$f"
done
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
