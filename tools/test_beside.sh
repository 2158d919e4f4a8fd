#!/usr/bin/env bash
# tools/test_beside.sh TIMES_FILE COPY_DIR: the part of tools/test.sh that
# runs beside its Bazel suites: the tools' own tests, the emulated OSS-Fuzz
# build and the coverage report. None of them shares an output with the
# suites. The tools' tests run no Bazel (stand-ins); the other two run in a
# copy of the working tree (COPY_DIR, made anew:
# the files git tracks or would track, third_party/src linked, the
# git-ignored .bazelrc.host and .bazelrc.local copied), which is another
# Bazel workspace with its own output base and server, sharing the disk
# cache. (The same tree with a second --output_base would not do: the
# bazel-* links of the first are packages to the second.) They use the
# cores the suites leave idle (their test runs, links, analysis).
# Appends one "<seconds> s  <step> (beside)" line per step to TIMES_FILE;
# stops at the first failing step with its exit code. tools/test.sh starts
# it, prints its output after its own, and fails if it failed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
times_file="$1" copy="$2"

step() {
  local name="$1" t0 rc=0
  shift
  echo "=== $name"
  t0=$(date +%s)
  "$@" || rc=$?
  printf '%5d s  %s (beside)\n' $(( $(date +%s) - t0 )) "$name" >>"$times_file"
  if ((rc != 0)); then
    echo "=== FAILED: $name (exit $rc)"
    exit "$rc"
  fi
}
step "the tools' own tests (self-test patches, runner, corpus, campaign, OSS-Fuzz checks, coverage, docs links)" \
  tools/tools_tests.sh

# The Bazel builds, in the copy.
rm -rf "$copy"
mkdir -p "$copy"
git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done |
  xargs -0 cp -P --parents -t "$copy"
ln -s "$PWD/third_party/src" "$copy/third_party/src"
for f in .bazelrc.host .bazelrc.local; do [ ! -f "$f" ] || cp "$f" "$copy/"; done
trap '(cd "$copy" && bazel shutdown >/dev/null 2>&1) || true' EXIT
cd "$copy"
# Each target fuzzes 2 s (the tool's default is 10): what is checked is that
# it starts as ClusterFuzz starts it and replays its seeds without a crash.
step "tools/oss_fuzz_check.sh (.clusterfuzzlite/build.sh in an emulated OSS-Fuzz environment)" \
  tools/oss_fuzz_check.sh --seconds=2
step "tools/coverage.sh on a tiny corpus (report written, summary line parses)" \
  python3 tools/coverage_test.py --run-script ScriptTest
