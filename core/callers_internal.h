// core/callers_internal.h: what core/callers.cc and core/callers_read.cc
// share. Internal to core; the harness uses core/callers.h.
#ifndef FLOWCHECK_CORE_CALLERS_INTERNAL_H_
#define FLOWCHECK_CORE_CALLERS_INTERNAL_H_

#include "core/callers.h"
#include "core/exp_rcv.h"

namespace callers_internal {

// For callers whose flow-layer function took and dropped exp_lock itself:
// takes it again for the observer, s_lock still held (so IRQs are off and a
// plain spin_lock is the kernel's way).
void ObserveWithSLock(CallerObserver* observer, rvt_qp* qp, CallerOp op, long arg, int ret)
    __must_hold(&qp->s_lock);

// Segments of the request set up and not yet cleared.
int PendingSegments(const tid_rdma_request& req);

// The QP's flow as a caller found it, for the audit.
struct FlowBefore {
  u8 index;
  u32 generation;
};
FlowBefore FlowOf(const rvt_qp* qp) __must_hold(&qp->s_lock);

// NOT KERNEL, model audit of: one role freed or renewed the QP's
// shared flow (it was `before`) while the other role had `other_pending`
// segments live on it (neither role's code looks at the other's):
// counted in model_cross_role_clears, which R7 reports.
void AuditCrossRoleClear(rvt_qp* qp, const FlowBefore& before, int other_pending)
    __must_hold(&qp->s_lock);

}  // namespace callers_internal

#endif  // FLOWCHECK_CORE_CALLERS_INTERNAL_H_
