// program/testdata/test_op_runner.cc: the runner of the test build's extra op
// (test_op_rows.h), written as every runner is (program/qp_ops.cc): the op's
// core/callers.h function, checked under its locks.
#include "core/callers.h"
#include "program/op_check.h"
#include "program/ops.h"

namespace flowcheck {
namespace program {

std::atomic<int> g_test_nudges{0};

bool RunTestNudge(Run*, Participant* p, QpSlot* s, const ListedOp&) {
  OpCheck check(p, s->ctx, "test nudge");
  caller_rarr_release(s->qp, &check);
  g_test_nudges.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace program
}  // namespace flowcheck
