// core/caller_checks.cc: see checks.h.
#include "core/caller_checks.h"

#include "common/strings.h"
#include "core/bitops.h"
#include "core/invariants.h"
#include "core/list.h"
#include "core/model_view.h"
#include "core/workqueue.h"
#include "lockcheck/lockdep.h"

namespace flowcheck {
namespace {

constexpr unsigned long kFlowBits = (1UL << RXE_NUM_TID_FLOWS) - 1;

void AddCore(const std::vector<InvariantViolation>& v, std::vector<Finding>* out) {
  for (const InvariantViolation& x : v) {
    out->push_back(Finding{x.id, x.detail, x.severity == Severity::kUpstreamDivergence});
  }
}

int QpOwning(const ContextState& ctx, int flow) ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx.rcd->exp_lock) {
  for (const rvt_qp* qp : ctx.qps) {
    if (qp->priv->flow_state.index == flow) return static_cast<int>(qp->qp_num);
  }
  return -1;
}

// core's CheckInvariants of ctx, the harness's bare flows counted as owned
// (base_refs 1: the QP table's reference), into *out.
void AddCoreInvariants(const ContextState& ctx, bool quiescent, std::vector<Finding>* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx.rcd->exp_lock) {
  CheckOptions options;
  options.quiescent = quiescent;
  options.harness_reserved_flows = ctx.bare_mask;
  options.base_refs = 1;
  AddCore(CheckInvariants(*ctx.rcd, ctx.qps, options), out);
}

}  // namespace

const Finding* FirstFailure(const std::vector<Finding>& findings) {
  for (const Finding& f : findings) {
    if (!f.divergence) return &f;
  }
  return nullptr;
}

std::vector<Finding> CheckAfterOp(const ContextState& ctx) {
  lockdep_assert_held(&ctx.rcd->exp_lock);
  std::vector<Finding> out;
  AddCoreInvariants(ctx, /*quiescent=*/false, &out);

  unsigned int qp_owned = 0;
  for (const rvt_qp* qp : ctx.qps) {
    if (qp->priv->flow_state.index < RXE_NUM_TID_FLOWS) ++qp_owned;
  }
  const unsigned int reserved = hweight_long(ctx.rcd->flow_mask & kFlowBits);
  const unsigned int harness = hweight_long(ctx.bare_mask);
  if (reserved != qp_owned + harness) {
    out.push_back(Finding{
        kIdMaskCount,
        flowcheck::StrFormat("popcount(flow_mask 0x%lx) = %u but %u flow(s) are owned "
                             "(%u by QPs, %u by harness threads)",
                             ctx.rcd->flow_mask, reserved, qp_owned + harness, qp_owned, harness)});
  }
  return out;
}

std::vector<Finding> CheckBareReserve(const ContextState& ctx, int last, int ret, int thread) {
  lockdep_assert_held(&ctx.rcd->exp_lock);
  std::vector<Finding> out;
  const unsigned long mask = ctx.rcd->flow_mask;
  if (ret == -EAGAIN) {
    if ((mask & kFlowBits) != kFlowBits) {
      out.push_back(Finding{
          kIdEagain,
          flowcheck::StrFormat("kern_reserve_flow(last=%d) by harness thread %d returned -EAGAIN "
                               "while flow_mask was 0x%lx: flow %d was free",
                               last, thread, mask, static_cast<int>(ffz(mask)))});
    }
    return out;
  }
  if (ret < 0 || ret >= RXE_NUM_TID_FLOWS) {
    out.push_back(
        Finding{kIdReserve, flowcheck::StrFormat("kern_reserve_flow(last=%d) returned %d, "
                                                 "neither a flow nor -EAGAIN",
                                                 last, ret)});
    return out;
  }
  if (!test_bit(ret, &mask)) {
    out.push_back(
        Finding{kIdReserve, flowcheck::StrFormat("kern_reserve_flow(last=%d) returned flow "
                                                 "%d but its bit is clear in flow_mask 0x%lx",
                                                 last, ret, mask)});
  }
  const int qpn = QpOwning(ctx, ret);
  if (qpn >= 0) {
    out.push_back(
        Finding{kIdReserve,
                flowcheck::StrFormat("flow %d handed out twice: kern_reserve_flow(last=%d) gave "
                                     "it to harness thread %d while qp %d owns it",
                                     ret, last, thread, qpn)});
  }
  if ((ctx.bare_mask >> ret) & 1) {
    out.push_back(
        Finding{kIdReserve,
                flowcheck::StrFormat("flow %d handed out twice: kern_reserve_flow(last=%d) gave "
                                     "it to harness thread %d while harness thread %d holds it",
                                     ret, last, thread, ctx.bare_owner[ret])});
  }
  return out;
}

char QueueOf(const ContextState& ctx, const rvt_qp* qp) {
  const list_head* node = &qp->priv->tid_wait;
  if (OnQueue(ctx.rcd->flow_queue, node)) return 'f';
  if (OnQueue(ctx.rcd->rarr_queue, node)) return 'r';
  return 0;
}

std::vector<Finding> CheckSetupResult(const ContextState& ctx, const rvt_qp* qp, int ret) {
  lockdep_assert_held(&ctx.rcd->exp_lock);
  std::vector<Finding> out;
  const tid_flow_state& fs = qp->priv->flow_state;
  const char queue = QueueOf(ctx, qp);
  const bool flagged = WaitTidSpaceFlag(qp);  // the caller holds s_lock
  if (ret == 0) {
    if (fs.index >= RXE_NUM_TID_FLOWS || !test_bit(fs.index, &ctx.rcd->flow_mask)) {
      out.push_back(
          Finding{kIdSetup, flowcheck::StrFormat("hfi1_kern_setup_hw_flow(qp %u) returned 0 "
                                                 "but the QP owns no reserved flow (index "
                                                 "%u, flow_mask 0x%lx)",
                                                 qp->qp_num, fs.index, ctx.rcd->flow_mask)});
    }
    if (queue == 'f') {
      out.push_back(
          Finding{kIdSetup, flowcheck::StrFormat("hfi1_kern_setup_hw_flow(qp %u) returned 0 "
                                                 "but left the QP on flow_queue",
                                                 qp->qp_num)});
    }
  } else if (ret == -EAGAIN) {
    if (fs.index != RXE_NUM_TID_FLOWS) {
      out.push_back(
          Finding{kIdSetup, flowcheck::StrFormat("hfi1_kern_setup_hw_flow(qp %u) returned "
                                                 "-EAGAIN but the QP owns flow %u",
                                                 qp->qp_num, fs.index)});
    }
    if (queue != 'f' || !flagged) {
      out.push_back(
          Finding{kIdSetup,
                  flowcheck::StrFormat("hfi1_kern_setup_hw_flow(qp %u) returned -EAGAIN but the QP "
                                       "is %s and %s: nobody will wake it",
                                       qp->qp_num,
                                       queue == 'f'   ? "on flow_queue"
                                       : queue == 'r' ? "on rarr_queue, not flow_queue"
                                                      : "on no queue",
                                       flagged ? "flagged" : "not flagged HFI1_S_WAIT_TID_SPACE")});
    }
  } else {
    out.push_back(Finding{
        kIdSetup,
        flowcheck::StrFormat("hfi1_kern_setup_hw_flow(qp %u) returned %d", qp->qp_num, ret)});
  }
  return out;
}

std::vector<Finding> CheckNoLostWakeup(const ContextState& ctx) {
  lockdep_assert_held(&ctx.rcd->exp_lock);
  std::vector<Finding> out;
  if (list_empty(&ctx.rcd->flow_queue.queue_head)) return out;
  if ((ctx.rcd->flow_mask & kFlowBits) == kFlowBits) return out;
  const hfi1_qp_priv* head =
      list_first_entry(const_cast<list_head*>(&ctx.rcd->flow_queue.queue_head), hfi1_qp_priv, tid_wait);
  int waiting = 0;
  for (const rvt_qp* qp : ctx.qps) {
    if (OnQueue(ctx.rcd->flow_queue, &qp->priv->tid_wait)) ++waiting;
  }
  const bool in_flight = work_pending(&head->tid_rdma.trigger_work) ||
                         work_pending(&head->s_iowait.iowork);
  if (in_flight) return out;  // not at rest after all: the wakeup is on its way
  out.push_back(Finding{
      kIdNoLostWakeup,
      flowcheck::StrFormat(
          "qp %u waits at the head of flow_queue (%d QP(s) waiting) while %u of 32 "
          "flows are free (flow_mask 0x%lx) and no wakeup is pending: nobody will "
          "wake it",
          head->owner->qp_num, waiting,
          RXE_NUM_TID_FLOWS - hweight_long(ctx.rcd->flow_mask & kFlowBits), ctx.rcd->flow_mask)});
  return out;
}

std::vector<Finding> CheckAtRest(const ContextState& ctx) {
  lockdep_assert_held(&ctx.rcd->exp_lock);
  std::vector<Finding> out;
  AddCoreInvariants(ctx, /*quiescent=*/true, &out);
  for (Finding& f : CheckNoLostWakeup(ctx)) out.push_back(std::move(f));
  return out;
}

std::vector<Finding> CheckFinal(const ContextState& ctx) {
  lockdep_assert_held(&ctx.rcd->exp_lock);
  std::vector<Finding> out = CheckAtRest(ctx);
  if (ctx.rcd->flow_mask != 0) {
    out.push_back(
        Finding{kIdFinal, flowcheck::StrFormat("context %u: flow_mask is 0x%lx after every "
                                               "owner released its flows",
                                               ctx.rcd->ctxt, ctx.rcd->flow_mask)});
  }
  if (ctx.bare_mask != 0) {
    out.push_back(
        Finding{kIdFinal, flowcheck::StrFormat("context %u: the harness still holds flows "
                                               "0x%lx",
                                               ctx.rcd->ctxt, ctx.bare_mask)});
  }
  if (!list_empty(&ctx.rcd->flow_queue.queue_head) || !list_empty(&ctx.rcd->rarr_queue.queue_head)) {
    out.push_back(Finding{
        kIdFinal,
        flowcheck::StrFormat("context %u: flow_queue %s, rarr_queue %s "
                             "at the end",
                             ctx.rcd->ctxt,
                             list_empty(&ctx.rcd->flow_queue.queue_head) ? "empty" : "NOT empty",
                             list_empty(&ctx.rcd->rarr_queue.queue_head) ? "empty" : "NOT empty")});
  }
  for (const rvt_qp* qp : ctx.qps) {
    const int refs = qp->refcount.load(std::memory_order_acquire);
    if (refs != 1) {
      out.push_back(
          Finding{kIdFinal, flowcheck::StrFormat("qp %u holds %d reference(s) at the end, "
                                                 "1 (the QP table's) expected",
                                                 qp->qp_num, refs)});
    }
    if (work_pending(&qp->priv->tid_rdma.trigger_work) ||
        work_pending(&qp->priv->s_iowait.iowork)) {
      out.push_back(Finding{
          kIdFinal, flowcheck::StrFormat("qp %u still has work pending at the end", qp->qp_num)});
    }
  }
  return out;
}

}  // namespace flowcheck
