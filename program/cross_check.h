// program/cross_check.h: internal to the engine. At a quiescent point, what
// each thread believes about its QPs and its bare flows, against the model.
#ifndef FLOWCHECK_PROGRAM_CROSS_CHECK_H_
#define FLOWCHECK_PROGRAM_CROSS_CHECK_H_

#include "absl/base/thread_annotations.h"
#include "program/run_state.h"

namespace flowcheck {
namespace program {

// For every participant's QP on `ctx`: its QpState agrees with the QP's flow
// and queue; for every bare flow a participant claims on `ctx`: the harness
// table says it holds it; and the table holds no flow nobody claims. Fails
// the run ("invariant ownership") on the first disagreement. The leader of a
// quiescent point only: every participant parked, the work queue idle.
void CrossCheck(Run* run, ContextState* ctx) ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx->rcd->exp_lock);

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_CROSS_CHECK_H_
