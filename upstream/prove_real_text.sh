#!/usr/bin/env bash
# upstream/prove_real_text.sh: proof that upstream mode tests the kernel's own
# text. Copies the kernel tree's tid_rdma.c to a scratch directory, points the
# build at the copy (FLOWCHECK_KERNEL_SRC), and runs one test target in
# --config=upstream twice:
#   1. the copy unchanged: the target must pass (the override works and the
#      copy is as good as the original);
#   2. the copy with kern_reserve_flow's bound check made off by one
#      (`nr > (RXE_NUM_TID_FLOWS - 1)` -> `nr > RXE_NUM_TID_FLOWS`, so a full
#      bitmap hands out flow 32): the target must fail, with a KernReserveFlow
#      test failing;
# then the same two steps for the RcvArray side: //core:exp_rcv_test on the
# unchanged copy, then with kern_unprogram_rcv_group's `grp->used--;`
# deleted (an ExpRcv or GRules test must fail: G2 sees used and the map
# disagree).
# Exit 0 when both hold, 1 otherwise (saying which), 2 on a usage/setup error.
# Run by tools/test.sh. The kernel tree is never modified. Extra arguments go
# to both `bazel test` runs (e.g. --config=tsan).
#
#   upstream/prove_real_text.sh [bazel test flags]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

TARGET="//core:tid_rdma_flow_test"
HFI1="drivers/infiniband/hw/hfi1"
ORIGINAL='if (nr > (RXE_NUM_TID_FLOWS - 1))'
MUTATED='if (nr > RXE_NUM_TID_FLOWS)'

say() { printf '[prove_real_text] %s\n' "$*"; }

tree="${FLOWCHECK_KERNEL_SRC:-$ROOT/third_party/src/linux-hfi1}"
src="$tree/$HFI1/tid_rdma.c"
[ -f "$src" ] || src="$tree/tid_rdma.c"
if [ ! -f "$src" ]; then
  say "no tid_rdma.c under $tree (run tools/bootstrap.sh or set FLOWCHECK_KERNEL_SRC)" >&2
  exit 2
fi
count="$(grep -cF "$ORIGINAL" "$src" || true)"
if [ "$count" != 1 ]; then
  say "$src has $count copies of '$ORIGINAL' (expected 1 in kern_reserve_flow): update this proof" >&2
  exit 2
fi

# Under third_party/src (git-ignored, and ignored by Bazel's package loading),
# so sandboxed actions see it exactly as they see the default tree.
scratch="$(mktemp -d "$ROOT/third_party/src/.prove-real-text.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/$HFI1"
cp "$src" "$scratch/$HFI1/tid_rdma.c"
log="$scratch/bazel.log"

run() {  # run <label>: bazel test of TARGET against the scratch tree
  set +e
  bazel test --config=upstream "--repo_env=FLOWCHECK_KERNEL_SRC=$scratch" "$@" "$TARGET" \
    --test_output=errors > "$log" 2>&1
  local rc=$?
  set -e
  return $rc
}

say "1/4: $TARGET on an unchanged copy of $src"
if ! run "$@"; then
  tail -40 "$log"
  say "FAIL: $TARGET fails on the unchanged kernel text" >&2
  exit 1
fi

say "2/4: $TARGET with kern_reserve_flow's bound check off by one ('$MUTATED')"
python3 - "$scratch/$HFI1/tid_rdma.c" "$ORIGINAL" "$MUTATED" <<'EOF'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
open(path, "w").write(text.replace(old, new, 1))
EOF
rc=0
run "$@" || rc=$?
# 3 is bazel's "build OK, tests failed"; anything else (a build error, say)
# would not show that the test caught the change.
if [ "$rc" -ne 3 ] || ! grep -q '^\[  FAILED  \] KernReserveFlow\.' "$log"; then
  tail -40 "$log"
  say "FAIL: the off-by-one kernel text was not caught by a failing KernReserveFlow test (bazel exit $rc)" >&2
  exit 1
fi
say "caught: $(grep -m1 '^\[  FAILED  \] KernReserveFlow\.' "$log" | sed 's/^\[  FAILED  \] //')"
grep -m1 -E 'tid_rdma_flow_test.cc:[0-9]+: Failure' "$log" | sed 's/^/[prove_real_text]   /' || true
say "PASS: $TARGET passes on the kernel's text and fails when that text is changed"

# The RcvArray side: the same proof on kern_unprogram_rcv_group.
TARGET="//core:exp_rcv_test"
ORIGINAL='grp->used--;'
count="$(grep -cF "$ORIGINAL" "$src" || true)"
if [ "$count" != 1 ]; then
  say "$src has $count copies of '$ORIGINAL' (expected 1 in kern_unprogram_rcv_group): update this proof" >&2
  exit 2
fi
cp "$src" "$scratch/$HFI1/tid_rdma.c"
say "3/4: $TARGET on an unchanged copy of $src"
if ! run "$@"; then
  tail -40 "$log"
  say "FAIL: $TARGET fails on the unchanged kernel text" >&2
  exit 1
fi
say "4/4: $TARGET with kern_unprogram_rcv_group's '$ORIGINAL' deleted"
python3 - "$scratch/$HFI1/tid_rdma.c" "$ORIGINAL" "" <<'EOF'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
open(path, "w").write(text.replace(old, new, 1))
EOF
rc=0
run "$@" || rc=$?
if [ "$rc" -ne 3 ] || ! grep -qE '^\[  FAILED  \] (ExpRcv|GRules)\.' "$log"; then
  tail -40 "$log"
  say "FAIL: the changed RcvArray text was not caught by a failing ExpRcv test (bazel exit $rc)" >&2
  exit 1
fi
say "caught: $(grep -m1 -E '^\[  FAILED  \] (ExpRcv|GRules)\.' "$log" | sed 's/^\[  FAILED  \] //')"
say "PASS: $TARGET passes on the kernel's text and fails when that text is changed"
