// program/op_check.cc: see op_check.h.
#include "program/op_check.h"

#include <cstdio>
#include <cstdlib>

#include "common/strings.h"
#include "core/tid_rdma.h"
#include "lockcheck/lockdep.h"
#include "program/oracle_follow.h"

namespace flowcheck {
namespace program {
namespace {

const char* QueueName(char q) {
  return q == 'f' ? "flow_queue" : q == 'r' ? "rarr_queue" : "no queue";
}

// The QP must be on `expected` ('f', 'r', 0) after the op `where`.
void CheckQueue(Participant* p, const ContextState& ctx, const char* where, const rvt_qp* qp,
                char expected) ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx.rcd->exp_lock) {
  if (expected == kAnyQueue) return;
  const char q = QueueOf(ctx, qp);
  if (q != expected) {
    FailWith(Finding{kIdQueue, flowcheck::StrFormat("after %s, qp %u is on %s, expected %s", where,
                                                    qp->qp_num, QueueName(q), QueueName(expected))},
             p->name);
  }
}

}  // namespace

void CheckContext(Participant* p, const ContextState& ctx, const char* where) {
  Judge(p, CheckAfterOp(ctx), where);
  p->Count(kChecks);
}

void CheckContextLocked(Participant* p, ContextState* ctx, const char* where) {
  unsigned long flags;
  spin_lock_irqsave(&ctx->rcd->exp_lock, flags);
  CheckContext(p, *ctx, where);
  spin_unlock_irqrestore(&ctx->rcd->exp_lock, flags);
}

void OpCheck::UnderLock(hfi1_ctxtdata* rcd, const CallerEvent& e) {
  if (rcd != ctx_->rcd) {
    std::fprintf(stderr, "stress: %s: %s observed on context %u, expected %u\n", p_->name.c_str(),
                 CallerOpName(e.op), rcd->ctxt, ctx_->rcd->ctxt);
    std::abort();
  }
  lockdep_assert_held(&ctx_->rcd->exp_lock);  // the same lock, for the analysis
  Check(e);
  // The oracle after the checks: a bug they name keeps their marker.
  if (p_->oracle != nullptr) {
    const std::string failure = p_->oracle->Observe(p_->index, *ctx_->rcd, e);
    if (!failure.empty()) FailWith(Finding{kIdOracle, failure}, p_->name);
  }
}

void OpCheck::Check(const CallerEvent& e) {
  switch (e.op) {
    case CallerOp::kSetupHwFlow: Setup(e); return;
    case CallerOp::kClearHwFlow: Clear(e); return;
    case CallerOp::kReserveFlow: BareReserve(e); return;
    case CallerOp::kReleaseFlow: BareRelease(e); return;
    case CallerOp::kReadReqSegment:
    case CallerOp::kReadRespSegment:
    case CallerOp::kWriteAllocSegment:
    case CallerOp::kWriteDataSegment:
    case CallerOp::kWriteAllocIdle: Derived(e); return;
    case CallerOp::kGiveUpFlowWait:
      // Given up only if the flow had not been granted in the meantime.
      if (e.ret == 0) {
        CheckContext(p_, *ctx_, "give up (already granted)");
        return;
      }
      break;
    default:
      break;
  }
  CheckQueue(p_, *ctx_, where_, e.qp, expected_queue_);
  CheckContext(p_, *ctx_, where_);
}

void OpCheck::Setup(const CallerEvent& e) {
  rvt_qp* qp = e.qp;
  lockdep_assert_held(&qp->s_lock);
  // The request layer keeps wanting a flow until it has one; the send engine
  // (hfi1_model_send_engine, run by a worker after a wakeup) then gets it.
  wanted_flow_before_ = qp->priv->model_req.wants_flow;
  qp->priv->model_req.wants_flow = e.ret != 0;
  Judge(p_, CheckSetupResult(*ctx_, qp, e.ret), where_);
  CheckContext(p_, *ctx_, where_);
}

void OpCheck::Clear(const CallerEvent& e) {
  const rvt_qp* qp = e.qp;
  if (qp->priv->flow_state.index != RXE_NUM_TID_FLOWS) {
    FailWith(Finding{kIdClear,
                     flowcheck::StrFormat("hfi1_kern_clear_hw_flow(qp %u) left it owning flow %u",
                                          qp->qp_num, qp->priv->flow_state.index)},
             p_->name);
  }
  CheckContext(p_, *ctx_, where_);
}

// The READ requester's and the WRITE responder's code decide on their own
// whether the QP keeps, frees, renews or waits for a flow, or waits for
// TIDs: the thread's belief is what the model says afterwards. A wait for a
// flow is judged as a setup's -EAGAIN and begins the request layer's wait
// (wants_flow). A READ segment's result must agree with the queue the QP is
// on (sent: none; -EAGAIN: one). The ops on a QP waiting on rarr_queue run
// only for the role whose segment waits, the other role's not waiting
// (qp_ops.cc), so no call leaves the QP on rarr_queue without a flow (the
// kernel can: [R-1]'s precondition, core's R1 tests; the engine's states
// cannot hold it).
void OpCheck::Derived(const CallerEvent& e) {
  rvt_qp* qp = e.qp;
  lockdep_assert_held(&qp->s_lock);
  const bool owns = qp->priv->flow_state.index < RXE_NUM_TID_FLOWS;
  const char q = QueueOf(*ctx_, qp);
  lost_flow_ = !owns && q == 'f';
  if (lost_flow_) {
    wanted_flow_before_ = qp->priv->model_req.wants_flow;
    qp->priv->model_req.wants_flow = true;
    Judge(p_, CheckSetupResult(*ctx_, qp, -EAGAIN), where_);
  } else if (!owns && q == 'r') {
    FailWith(
        Finding{kIdQueue, flowcheck::StrFormat("after %s, qp %u is on rarr_queue without a flow",
                                               where_, qp->qp_num)},
        p_->name);
  }
  if (e.op == CallerOp::kReadReqSegment && (e.ret == 0 || e.ret == -EAGAIN) &&
      (e.ret == 0) != (q == 0)) {
    FailWith(Finding{kIdQueue, flowcheck::StrFormat("after %s (%s), qp %u is on %s", where_,
                                                    e.ret == 0 ? "sent" : "-EAGAIN", qp->qp_num,
                                                    QueueName(q))},
             p_->name);
  }
  derived_state_ = !owns ? (lost_flow_ ? QpState::kWaitingFlow : QpState::kIdle)
                         : (q == 'r' ? QpState::kOwnedRarr : QpState::kOwned);
  CheckContext(p_, *ctx_, where_);
}

// A bare reservation is recorded in the harness table in the same critical
// section, after it was judged against the table as it was.
void OpCheck::BareReserve(const CallerEvent& e) {
  const int last = static_cast<int>(e.arg);
  const int ret = e.ret;
  Judge(p_, CheckBareReserve(*ctx_, last, ret, p_->index), where_);
  if (ret >= 0) {
    ctx_->bare_mask |= 1UL << ret;
    ctx_->bare_owner[ret] = p_->index;
    p_->bare.emplace_back(ctx_, ret);
  }
  if (state_check_) CheckContext(p_, *ctx_, where_);
}

void OpCheck::BareRelease(const CallerEvent& e) {
  const int flow = static_cast<int>(e.arg);
  if (!((ctx_->bare_mask >> flow) & 1) || ctx_->bare_owner[flow] != p_->index) {
    FailWith(Finding{kIdOwnership,
                     flowcheck::StrFormat("harness thread %d releases flow %d, which the "
                                          "harness table says it does not hold (mask 0x%lx)",
                                          p_->index, flow, ctx_->bare_mask)},
             p_->name);
  }
  ctx_->bare_mask &= ~(1UL << flow);
  CheckContext(p_, *ctx_, where_);
  head_to_wake_ = first_qp(ctx_->rcd, &ctx_->rcd->flow_queue);
}

}  // namespace program
}  // namespace flowcheck
