#!/usr/bin/env bash
# upstream/prove_real_text.sh: proof that upstream mode tests the kernel's own
# text. Copies the kernel tree's tid_rdma.c to a scratch directory, points the
# build at the copy (FLOWCHECK_KERNEL_SRC), and, for each of two edits, runs
# one test target in --config=upstream twice:
#   1. the copy unchanged: the target must pass (the override works and the
#      copy is as good as the original);
#   2. the copy with the edit: the target must fail, with a test of the named
#      suite failing.
# The edits:
#   - kern_reserve_flow's bound check made off by one
#     (`nr > (RXE_NUM_TID_FLOWS - 1)` -> `nr > RXE_NUM_TID_FLOWS`, so a full
#     bitmap hands out flow 32): //core:tid_rdma_flow_test, KernReserveFlow;
#   - kern_unprogram_rcv_group's `grp->used--;` deleted (a freed group never
#     returns to tid_group_list): //core:exp_rcv_test, ExpRcv or GRules.
# Exit 0 when all hold, 1 otherwise (saying which), 2 on a usage/setup error.
# Run by tools/test.sh. The kernel tree is never modified. Extra arguments go
# to every `bazel test` run (e.g. --config=tsan).
#
#   upstream/prove_real_text.sh [bazel test flags]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

HFI1="drivers/infiniband/hw/hfi1"

say() { printf '[prove_real_text] %s\n' "$*"; }

tree="${FLOWCHECK_KERNEL_SRC:-$ROOT/third_party/src/linux-hfi1}"
src="$tree/$HFI1/tid_rdma.c"
[ -f "$src" ] || src="$tree/tid_rdma.c"
if [ ! -f "$src" ]; then
  say "no tid_rdma.c under $tree (run tools/bootstrap.sh or set FLOWCHECK_KERNEL_SRC)" >&2
  exit 2
fi

# Under third_party/src (git-ignored, and ignored by Bazel's package loading),
# so sandboxed actions see it exactly as they see the default tree.
scratch="$(mktemp -d "$ROOT/third_party/src/.prove-real-text.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/$HFI1"
log="$scratch/bazel.log"

run() {  # run TARGET [bazel flags]: bazel test of TARGET against the scratch tree
  local target="$1"
  shift
  set +e
  bazel test --config=upstream "--repo_env=FLOWCHECK_KERNEL_SRC=$scratch" "$@" "$target" \
    --test_output=errors > "$log" 2>&1
  local rc=$?
  set -e
  return $rc
}

# prove STEP TARGET FUNCTION ORIGINAL MUTATED SUITES [bazel flags]: TARGET
# passes on the unchanged copy and fails, with a test of SUITES (a regex of
# gtest suite names) failing, once FUNCTION's ORIGINAL becomes MUTATED.
prove() {
  local step="$1" target="$2" function="$3" original="$4" mutated="$5" suites="$6"
  shift 6
  local count
  count="$(grep -cF "$original" "$src" || true)"
  if [ "$count" != 1 ]; then
    say "$src has $count copies of '$original' (expected 1 in $function): update this proof" >&2
    exit 2
  fi
  cp "$src" "$scratch/$HFI1/tid_rdma.c"
  say "$step.1: $target on an unchanged copy of $src"
  if ! run "$target" "$@"; then
    tail -40 "$log"
    say "FAIL: $target fails on the unchanged kernel text" >&2
    exit 1
  fi
  say "$step.2: $target with $function's '$original' changed to '$mutated'"
  python3 - "$scratch/$HFI1/tid_rdma.c" "$original" "$mutated" <<'EOF'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
open(path, "w").write(text.replace(old, new, 1))
EOF
  local rc=0
  run "$target" "$@" || rc=$?
  # 3 is bazel's "build OK, tests failed"; anything else (a build error, say)
  # would not show that the test caught the change.
  if [ "$rc" -ne 3 ] || ! grep -qE "^\[  FAILED  \] ($suites)\." "$log"; then
    tail -40 "$log"
    say "FAIL: the changed kernel text was not caught by a failing $suites test (bazel exit $rc)" >&2
    exit 1
  fi
  say "caught: $(grep -m1 -E "^\[  FAILED  \] ($suites)\." "$log" | sed 's/^\[  FAILED  \] //')"
  grep -m1 -E '_test.cc:[0-9]+: Failure' "$log" | sed 's/^/[prove_real_text]   /' || true
  say "PASS: $target passes on the kernel's text and fails when that text is changed"
}

prove 1 //core:tid_rdma_flow_test kern_reserve_flow 'if (nr > (RXE_NUM_TID_FLOWS - 1))' \
  'if (nr > RXE_NUM_TID_FLOWS)' KernReserveFlow "$@"
prove 2 //core:exp_rcv_test kern_unprogram_rcv_group 'grp->used--;' '' 'ExpRcv|GRules' "$@"
