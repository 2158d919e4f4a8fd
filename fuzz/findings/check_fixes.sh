#!/usr/bin/env bash
# fuzz/findings/check_fixes.sh: shows, on the model, that each proposed fix of
# a kernel hazard removes it (docs/findings.md).
#
#   fuzz/findings/check_fixes.sh [--only=NAME,...]
#
# For every fuzz/findings/fixes/NAME.patch (a header of "Key: value" lines, a
# blank line, a unified diff against core/; the "Inputs:" line names the
# finding inputs it is about):
#   1. each input reproduces on this tree:       reproduce --strict exits 1;
#   2. in a scratch copy of the tracked tree with the patch applied, each
#      input passes:                              reproduce --strict exits 0,
#      and so do the committed corpus and the regression test of flow_fuzz
#      (the fix breaks nothing they exercise).
# The working tree is never changed: the copy lives under a fresh temporary
# directory and is removed at the end (its bazel server is shut down).
# Exit 0 when every fix holds, 1 when one does not (saying which), 2 on a
# usage or setup error.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT="$PWD"

only=""
for a in "$@"; do
  case "$a" in
    --only=*) only="${a#--only=}" ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "check_fixes: unknown argument: $a (try --help)" >&2; exit 2 ;;
  esac
done

say() { printf '[check_fixes] %s\n' "$*"; }

bazel build --ui_event_filters=-info,-stdout --noshow_progress //fuzz:reproduce >/dev/null 2>&1 || {
  say "cannot build //fuzz:reproduce in $ROOT" >&2; exit 2; }
here_bin="$(bazel info bazel-bin 2>/dev/null)/fuzz/reproduce"

failed=0
for patch in fuzz/findings/fixes/*.patch; do
  name="$(basename "$patch" .patch)"
  if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
  inputs="$(sed -n 's/^Inputs: //p' "$patch")"
  [ -n "$inputs" ] || { say "$patch has no Inputs: line" >&2; exit 2; }

  for input in $inputs; do
    set +e; "$here_bin" --strict "fuzz/findings/$input" >/dev/null 2>&1; rc=$?; set -e
    if [ "$rc" -ne 1 ]; then
      say "FAIL $name: fuzz/findings/$input does not reproduce on this tree (exit $rc)"; failed=1
    fi
  done

  scratch="$(mktemp -d "${TMPDIR:-/tmp}/flowcheck-fix.XXXXXX")"
  (git ls-files -z | xargs -0 cp --parents -t "$scratch")
  mkdir -p "$scratch/third_party"
  ln -s "$ROOT/third_party/src" "$scratch/third_party/src"
  [ -f .bazelrc.host ] && cp .bazelrc.host "$scratch/"
  if ! patch -s -p1 -d "$scratch" < "$patch"; then
    say "FAIL $name: the patch does not apply"; failed=1; rm -rf "$scratch"; continue
  fi
  log="$scratch/bazel.log"
  set +e
  (cd "$scratch" && bazel build //fuzz:reproduce > "$log" 2>&1)
  rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    tail -20 "$log"; say "FAIL $name: the patched tree does not build"; failed=1
  else
    bin="$(cd "$scratch" && bazel info bazel-bin 2>/dev/null)/fuzz/reproduce"
    for input in $inputs; do
      set +e; "$bin" --strict "$ROOT/fuzz/findings/$input" > "$scratch/out.txt" 2>&1; rc=$?; set -e
      if [ "$rc" -eq 0 ]; then
        say "$name: fuzz/findings/$input reproduces unpatched (exit 1), passes patched (exit 0)"
      else
        tail -20 "$scratch/out.txt"; say "FAIL $name: fuzz/findings/$input still fails patched (exit $rc)"; failed=1
      fi
    done
    set +e
    (cd "$scratch" && bazel test //fuzz:flow_fuzz > "$log" 2>&1)
    rc=$?
    set -e
    if [ "$rc" -eq 0 ]; then
      say "$name: //fuzz:flow_fuzz (committed corpus and regressions) passes patched"
    else
      tail -20 "$log"; say "FAIL $name: //fuzz:flow_fuzz fails patched"; failed=1
    fi
  fi
  (cd "$scratch" && bazel shutdown >/dev/null 2>&1) || true
  rm -rf "$scratch"
done

if [ "$failed" -ne 0 ]; then exit 1; fi
say "PASS: every fix removes its hazard on the model"
