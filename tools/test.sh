#!/usr/bin/env bash
# tools/test.sh: the README's test command (and CI's, via .ci/run).
# Installs whatever is missing (tools/bootstrap.sh), then runs every test
# under ThreadSanitizer, on the model and in upstream mode (the kernel's own
# tid_rdma.c functions, docs/upstream.md) on Debian's 6.1 text, with the
# proof that a changed kernel text fails; then on Debian's 6.12 text and with
# the hfi2 driver profile on an hfi2-shaped text generated from hfi1's; then
# the emulated OSS-Fuzz build and the coverage report.
# Each test runs once per distinct program (docs/build.md, "What the test
# command runs"): not again without TSan (the default config compiles the
# same code with fewer checks), and on a second kernel text in full only
# when that text's code differs from 6.1's (upstream/same_code.py);
# otherwise the suites about the kernel text run on it.
# Extra arguments are passed to every `bazel test` run, e.g.
# tools/test.sh --test_output=all.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

start=$(date +%s)
# Every step is timed; the breakdown is printed at the end, or where a step
# failed (docs/build.md records it for a fresh machine).
times=()
step() {
  local name="$1" t0 rc=0
  shift
  echo "=== $name"
  t0=$(date +%s)
  "$@" || rc=$?
  times+=("$(printf '%5d s  %s' $(( $(date +%s) - t0 )) "$name")")
  if ((rc != 0)); then
    breakdown
    echo "=== FAILED: $name (exit $rc)"
    exit "$rc"
  fi
}
breakdown() {
  echo "=== time per step (tools/test.sh)"
  printf '  %s\n' "${times[@]}"
  echo "  $(( $(date +%s) - start )) s in all"
}
step "tools/bootstrap.sh (packages, sources)" tools/bootstrap.sh

# Lint and the tools' own tests run beside the TSan step: they build nothing
# and mostly wait on their stand-in processes, while the TSan compile keeps
# both cores busy. Their output is shown, and judged, once both are done.
side_log="$(mktemp)"
side_start=$(date +%s)
# Its own process group (setsid), so that a failed or interrupted run stops
# it and every process it started.
setsid bash -c 'tools/lint.sh && tools/tools_tests.sh' >"$side_log" 2>&1 &
side_pid=$!
trap 'kill -- -"$side_pid" 2>/dev/null || true; rm -f "$side_log"' EXIT
side_wait() {
  local rc=0
  wait "$side_pid" || rc=$?
  cat "$side_log"
  echo "(ran beside the TSan step: $(( $(date +%s) - side_start )) s from their start to the wait's end)"
  return "$rc"
}

step "bazel test --config=tsan //... (ThreadSanitizer)" bazel test --config=tsan //... "$@"
step "tools/lint.sh and the tools' own tests (self-test patches, runner, corpus, campaign, OSS-Fuzz checks, coverage, docs links)" \
  side_wait

step "bazel test --config=upstream --config=tsan //... (the kernel's tid_rdma.c functions, 6.1)" \
  bazel test --config=upstream --config=tsan //... "$@"
step "upstream/prove_real_text.sh (a changed kernel text fails a test)" \
  upstream/prove_real_text.sh --config=tsan "$@"

# second_text TREE PROFILE CONFIG...: upstream mode under TSan on another
# kernel text. Its whole suite when its code differs from 6.1's; when it is
# the same code (upstream/same_code.py: token for token, line markers,
# comments and the profile's names aside), the suites about the kernel text:
# the extraction and the text's own tests, core's, the differential fuzz
# replay and the controlled runs that find the flush hazard.
base_text=third_party/src/linux-hfi1/drivers/infiniband/hw/hfi1/tid_rdma.c
kernel_suites=(//upstream/... //core/... //fuzz:model_vs_upstream_test //program:controlled_test)
extra=("$@")  # the command's own arguments, for every bazel test
second_text() {
  local tree="$1" profile="$2" text
  shift 2
  text="$(sed -n 's/^dir //p' "upstream/profiles/$profile.profile")"
  local same=(python3 upstream/same_code.py "--base=$base_text" "--tree=$tree/$text/tid_rdma.c"
    "--profile=upstream/profiles/$profile.profile"
    --functions=upstream/functions.txt:upstream/shim/apis.txt
    --functions=upstream/pages/functions.txt:upstream/pages/apis.txt)
  local rc=0
  "${same[@]}" || rc=$?
  case "$rc" in
    0) bazel test "$@" "--repo_env=FLOWCHECK_KERNEL_SRC=$tree" "${kernel_suites[@]}" "${extra[@]}" ;;
    1) bazel test "$@" "--repo_env=FLOWCHECK_KERNEL_SRC=$tree" //... "${extra[@]}" ;;
    *) return "$rc" ;;
  esac
}
step "upstream mode + TSan on linux-source-6.12 (a second real tree)" \
  second_text third_party/src/linux-hfi1-6.12 hfi1 --config=upstream --config=tsan

# The hfi2 driver profile (upstream/profiles/hfi2.profile) without the hfi2
# tree: an hfi2-shaped tid_rdma.c generated from Debian's hfi1 text (git-ignored).
hfi2_tree=third_party/src/hfi2-generated
step "upstream/hfi2_shaped.py -> $hfi2_tree (hfi2-shaped text from hfi1's)" \
  python3 upstream/hfi2_shaped.py --profile=upstream/profiles/hfi2.profile --out="$hfi2_tree" \
  --hfi1=third_party/src/linux-hfi1/drivers/infiniband/hw/hfi1/tid_rdma.c
step "upstream mode + TSan with the hfi2 profile on the generated text" \
  second_text "$hfi2_tree" hfi2 --config=upstream_hfi2 --config=tsan

# Each target fuzzes 1 s (the tool's default is 10): what is checked is that
# it starts as ClusterFuzz starts it and replays its seeds without a crash
# (libFuzzer replays the whole seed corpus before it looks at the clock).
step "tools/oss_fuzz_check.sh (.clusterfuzzlite/build.sh in an emulated OSS-Fuzz environment)" \
  tools/oss_fuzz_check.sh --seconds=1
# The report is built from the emulation's coverage build (the same flags):
# nothing is compiled again.
step "tools/coverage.sh on a tiny corpus (report written, summary line parses)" \
  python3 tools/coverage_test.py --run-script ScriptTest

breakdown
echo "=== all tests passed under TSan, in upstream mode under TSan (6.1, 6.12, the hfi2 profile) and in the emulated OSS-Fuzz build ($(( $(date +%s) - start )) s)"
