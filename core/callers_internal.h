// core/callers_internal.h: what core/callers.cc and core/callers_read.cc
// share. Internal to core; the harness uses core/callers.h.
#ifndef FLOWCHECK_CORE_CALLERS_INTERNAL_H_
#define FLOWCHECK_CORE_CALLERS_INTERNAL_H_

#include "core/callers.h"
#include "core/exp_rcv.h"

// Segments of the QP's READ request set up and not yet cleared. s_lock.
int read_req_pending_segments(rvt_qp* qp) __must_hold(&qp->s_lock);
// The same for its TID WRITE request (the kernel's alloc_w_segs). s_lock.
int write_req_pending_segments(rvt_qp* qp) __must_hold(&qp->s_lock);

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

// The send side's lock as the send engine and the receive handlers take it:
// qp->s_lock, irqsave, for the guard's scope.
class SLockIrqsave {
 public:
  explicit SLockIrqsave(rvt_qp* qp) ABSL_NO_THREAD_SAFETY_ANALYSIS : qp_(qp) {
    spin_lock_irqsave(&qp->s_lock, flags_);
  }
  ~SLockIrqsave() ABSL_NO_THREAD_SAFETY_ANALYSIS { spin_unlock_irqrestore(&qp_->s_lock, flags_); }
  SLockIrqsave(const SLockIrqsave&) = delete;
  SLockIrqsave& operator=(const SLockIrqsave&) = delete;

 private:
  rvt_qp* const qp_;
  unsigned long flags_ = 0;
};

}  // namespace callers_internal

#endif  // FLOWCHECK_CORE_CALLERS_INTERNAL_H_
