// program/op_check.h: internal to the engine. The per-op checks, run by the
// caller itself while it still holds the locks (core/callers.h's observer).
//
//   OpCheck check(p, ctx, "release");
//   caller_clear_hw_flow(qp, &check);   // check.UnderLock runs under the locks
//
// Under the call's exp_lock (and the QP's s_lock) an OpCheck keeps the
// harness's bookkeeping in the same critical section as the call (the
// request layer's wants_flow after a setup, the table of bare flows after a
// bare reserve or release) and then checks: what the call promised its
// caller (CheckSetupResult, CheckBareReserve, the queue the QP must be on,
// a released flow really released), and core's invariants over the context
// (CheckAfterOp), counted as one check round; then, in a controlled
// execution, the oracle follows the call (oracle_follow.h). Any finding that
// is not an upstream divergence fails the run (judge.h).
//
// One OpCheck per call, on the calling thread's stack: it carries the
// thread (Participant) and the op's name explicitly.
#ifndef FLOWCHECK_PROGRAM_OP_CHECK_H_
#define FLOWCHECK_PROGRAM_OP_CHECK_H_

#include "absl/base/thread_annotations.h"
#include "core/callers.h"
#include "program/run_state.h"

namespace flowcheck {
namespace program {

// "No expectation" for the queue a QP ends on (else 'f', 'r' or 0).
constexpr char kAnyQueue = '?';

class OpCheck : public CallerObserver {
 public:
  // `where` names the op in findings ("checked after: <where>").
  OpCheck(Participant* p, ContextState* ctx, const char* where, char expected_queue = kAnyQueue)
      : p_(p), ctx_(ctx), where_(where), expected_queue_(expected_queue) {}

  void UnderLock(hfi1_ctxtdata* rcd, const CallerEvent& event) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd->exp_lock);

  // After a bare release: the head of flow_queue, taken (with a reference)
  // in the release's critical section, for the caller to wake once the lock
  // is dropped, as hfi1_kern_clear_hw_flow does. nullptr otherwise.
  rvt_qp* head_to_wake() const { return head_to_wake_; }
  // A bare reserve's result is judged either way; with `false` the whole
  // context (CheckContext) is not checked after it (the caller checks it
  // later, while still its only user: controlled.cc's setup).
  void set_state_check(bool on) { state_check_ = on; }
  // After a setup: whether the request layer still wanted a flow when the
  // call was made. The send engine clears wants_flow when it obtains the
  // flow for a waiting QP, so for a retried setup `false` means the flow had
  // already been granted (hfi1_kern_setup_hw_flow then changed nothing).
  bool wanted_flow_before() const { return wanted_flow_before_; }
  // After a READ requester's or WRITE responder's call (the segment and
  // response callers, core/callers.h): whether the QP lost its flow and now
  // waits on flow_queue (a new generation, none free: its request layer
  // wants a flow, as after a setup's -EAGAIN), and the QP's state as the
  // model left it (the kernel's code decides: a sync point or a completion
  // may free or renew the flow, a segment may queue the QP for TIDs).
  bool lost_flow() const { return lost_flow_; }
  QpState derived_state() const { return derived_state_; }

 private:
  void Check(const CallerEvent& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx_->rcd->exp_lock);
  void Setup(const CallerEvent& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx_->rcd->exp_lock);
  void Clear(const CallerEvent& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx_->rcd->exp_lock);
  void BareReserve(const CallerEvent& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx_->rcd->exp_lock);
  void BareRelease(const CallerEvent& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx_->rcd->exp_lock);
  void Derived(const CallerEvent& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx_->rcd->exp_lock);

  Participant* const p_;
  ContextState* const ctx_;
  const char* const where_;
  const char expected_queue_;
  rvt_qp* head_to_wake_ = nullptr;
  bool state_check_ = true;
  bool wanted_flow_before_ = false;
  bool lost_flow_ = false;
  QpState derived_state_ = QpState::kIdle;
};

// The per-op check for an op that holds exp_lock at its end: core's F and W
// invariants and the ownership count (CheckAfterOp), one check round.
void CheckContext(Participant* p, const ContextState& ctx, const char* where)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx.rcd->exp_lock);

// The same for a harness op that holds no lock (use, poll): takes exp_lock.
void CheckContextLocked(Participant* p, ContextState* ctx, const char* where);

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_OP_CHECK_H_
