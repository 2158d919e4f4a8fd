#!/usr/bin/env bash
# tools/reproduce.sh: replays a fuzz input and shows what it does and where it
# fails (the command tools/campaign.sh prints for every crash).
#
#   tools/reproduce.sh [--config=C ...] [--target=NAME] [--strict]
#                      [--emit_gtest=PATH] FILE
#
# Builds //fuzz:reproduce (default config, or the ones given, e.g. asan: a
# memory error in the model is reported as such; upstream: the kernel's text) and runs it on FILE: the
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
#
# Schedule files (header `flowcheck-schedule ...`, written by a
# scheduled run: docs/sched.md) are replayed by the binary of their `target`
# line, built in the config of their `sanitizer` line (plus any other --config
# given, e.g. --config=upstream for a schedule found on the kernel's text), as
# `BIN --replay=FILE`: exit 1 reproduced (or, on changed code, a failure of its
# own), 0 passes (on changed code: "does not reproduce: passed; the schedule
# diverged at decision N"), 2 unusable file (an edited one too: its checksum),
# 3 build failed. Two options apply to them, and to sched_fuzz inputs (whose
# failure is first written as a schedule file, FILE.schedule beside FILE, by
# `reproduce --schedule_out`; then that file is minimized or drawn; exit 2 if
# the input does not fail, so there is no schedule):
#   --minimize           write FILE's minimized schedule beside it, as
#                        <name>.min.schedule (same failure marker, fewer ops
#                        and preemptions; never over FILE): exit 1 written
#                        and reproduced, 2 FILE does not reproduce.
#   --timeline=PAGE.html record the replay's trace (PAGE minus .html, plus
#                        .trace.json) and draw it as one self-contained page
#                        with tools/timeline.py (exit 3 if either cannot be
#                        written; else the replay's status).
set -euo pipefail
here=$(pwd)
for a in "$@"; do
  [ "$a" != --signature ] || exec python3 "$(dirname "${BASH_SOURCE[0]}")/signature.py" "$@"
done
cd "$(dirname "${BASH_SOURCE[0]}")/.."

config=()
args=()
sched_args=()
timeline=""
file=""
for a in "$@"; do
  case "$a" in
    --minimize) sched_args+=("$a") ;;
    --timeline=/*.html) timeline="${a#--timeline=}" ;;
    --timeline=?*.html) timeline="$here/${a#--timeline=}" ;;
    --timeline=*) echo "reproduce.sh: --timeline=PAGE.html names an .html file" >&2; exit 2 ;;
    --config=*) config+=("$a") ;;
    --emit_gtest=/*) args+=("$a") ;;
    --emit_gtest=?*) args+=("--emit_gtest=$here/${a#--emit_gtest=}") ;;
    -*) args+=("$a") ;;
    /*) args+=("$a"); file="$a" ;;
    *) args+=("$here/$a"); file="$here/$a" ;;
  esac
done

# A schedule file: its first line that is neither blank nor a '#' comment is
# the header (the parser accepts comments before it too).
if [ -n "$file" ] && [ -f "$file" ] &&
   grep -v -m 1 -E '^[[:space:]]*(#|$)' "$file" 2>/dev/null | grep -q '^flowcheck-schedule '; then
  target=$(sed -n 's/^target //p' "$file" | head -n 1)
  sanitizer=$(sed -n 's/^sanitizer //p' "$file" | head -n 1)
  # The file's sanitizer decides tsan/asan; any other --config given (upstream,
  # upstream_hfi2: the kernel text the schedule was found on) is kept.
  kept=()
  for c in "${config[@]}"; do
    case "$c" in --config=tsan|--config=asan) ;; *) kept+=("$c") ;; esac
  done
  case "$sanitizer" in
    tsan|asan) config=("${kept[@]}" "--config=$sanitizer") ;;
    none|"") config=("${kept[@]}") ;;
    *) echo "reproduce.sh: $file: 'sanitizer' must be tsan, asan or none, not '$sanitizer' (exit 2)" >&2; exit 2 ;;
  esac
  case "$target" in
    //*:*) ;;
    *) echo "reproduce.sh: $file: no usable 'target //pkg:name' line" >&2; exit 2 ;;
  esac
  log=$(mktemp)
  trap 'rm -f "$log"' EXIT
  if ! bazel build "${config[@]}" --ui_event_filters=-info,-stdout --noshow_progress \
      "$target" 2>"$log" || ! bin_dir=$(bazel info "${config[@]}" bazel-bin 2>"$log"); then
    cat "$log" >&2
    echo "reproduce.sh: building $target failed (exit 3; the schedule was not replayed)" >&2
    exit 3
  fi
  pkg=${target#//}
  bin="$bin_dir/${pkg%%:*}/${pkg#*:}"
  if [ -z "$timeline" ]; then
    exec "$bin" --replay="$file" "${sched_args[@]}"
  fi
  trace="${timeline%.html}.trace.json"
  rc=0
  "$bin" --replay="$file" "${sched_args[@]}" --trace_out="$trace" || rc=$?
  if [ "$rc" -ne 2 ] && [ "$rc" -ne 3 ]; then
    python3 tools/timeline.py "$trace" "$timeline" || exit 3
  fi
  exit "$rc"
fi
if [ ${#sched_args[@]} -gt 0 ] || [ -n "$timeline" ]; then
  if [ -z "$file" ] || ! head -c 1 "$file" 2>/dev/null | grep -q '^S'; then
    echo "reproduce.sh: --minimize and --timeline apply to schedule files and sched_fuzz inputs only" >&2
    exit 2
  fi
fi
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
if [ ${#sched_args[@]} -eq 0 ] && [ -z "$timeline" ]; then
  exec "$bin_dir/fuzz/reproduce" "${args[@]}"
fi
# --minimize / --timeline on a fuzz input: a sched_fuzz failure becomes a
# schedule file beside it, which is then minimized or drawn as above.
schedule="$file.schedule"
rc=0
"$bin_dir/fuzz/reproduce" --schedule_out="$schedule" "${args[@]}" >"$log" 2>&1 || rc=$?
if [ "$rc" -eq 3 ]; then
  cat "$log" >&2
  echo "reproduce.sh: the schedule file $schedule could not be written (exit 3)" >&2
  exit 3
fi
if [ "$rc" -ne 1 ] || [ ! -f "$schedule" ]; then
  cat "$log" >&2
  echo "reproduce.sh: $file did not fail (exit $rc), so it has no schedule to minimize or draw (exit 2)" >&2
  exit 2
fi
echo "reproduce.sh: the failure's schedule: $schedule"
again=("${config[@]}" "${sched_args[@]}")
[ -z "$timeline" ] || again+=("--timeline=$timeline")
exec tools/reproduce.sh "${again[@]}" "$schedule"  # from the repository root (cd above)
