// core/callers.cc: see callers.h.
#include "core/callers.h"

#include <cstdio>
#include <cstdlib>

#include "core/bitops.h"
#include "core/tid_rdma.h"
#include "lockcheck/lockdep.h"

int caller_setup_hw_flow(rvt_qp* qp) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  int ret = hfi1_kern_setup_hw_flow(qp->priv->rcd, qp);
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return ret;
}

void caller_clear_hw_flow(rvt_qp* qp) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  hfi1_kern_clear_hw_flow(qp->priv->rcd, qp);
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

void caller_flush_wait(rvt_qp* qp) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  flush_qp_waiters(qp);
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

void caller_rarr_wait(rvt_qp* qp) {
  hfi1_ctxtdata* rcd = qp->priv->rcd;
  unsigned long flags, flags2;
  spin_lock_irqsave(&qp->s_lock, flags);
  spin_lock_irqsave(&rcd->exp_lock, flags2);
  queue_qp_for_tid_wait(rcd, &rcd->rarr_queue, qp);
  spin_unlock_irqrestore(&rcd->exp_lock, flags2);
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

// hfi1_kern_exp_rcv_setup() steps 4 and 9.
void caller_rarr_grant(rvt_qp* qp) {
  hfi1_ctxtdata* rcd = qp->priv->rcd;
  unsigned long flags, flags2;
  spin_lock_irqsave(&qp->s_lock, flags);
  spin_lock_irqsave(&rcd->exp_lock, flags2);
  dequeue_tid_waiter(rcd, &rcd->rarr_queue, qp);
  rvt_qp* fqp = first_qp(rcd, &rcd->rarr_queue);
  spin_unlock_irqrestore(&rcd->exp_lock, flags2);
  tid_rdma_schedule_tid_wakeup(fqp);
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

// hfi1_kern_exp_rcv_clear() steps 2 and 4.
void caller_rarr_release(rvt_qp* qp) {
  hfi1_ctxtdata* rcd = qp->priv->rcd;
  unsigned long flags, flags2;
  spin_lock_irqsave(&qp->s_lock, flags);
  spin_lock_irqsave(&rcd->exp_lock, flags2);
  rvt_qp* fqp = first_qp(rcd, &rcd->rarr_queue);
  spin_unlock_irqrestore(&rcd->exp_lock, flags2);
  if (fqp == qp) {
    lockdep_assert_held(&fqp->s_lock);  // fqp aliases qp (see tid_rdma_flow.cc)
    __trigger_tid_waiter(fqp);
    rvt_put_qp(fqp);
  } else {
    tid_rdma_schedule_tid_wakeup(fqp);
  }
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

void caller_set_wants_flow(rvt_qp* qp, bool wants_flow) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  qp->priv->model_req.wants_flow = wants_flow;
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

bool caller_resync(rvt_qp* qp, u32 psn) { return tid_rdma_rcv_resync_flow(qp, psn); }

void caller_clear_resync(rvt_qp* qp) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  qp->priv->resync = false;
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

int caller_reserve_flow(hfi1_ctxtdata* rcd, int last) {
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  int ret = kern_reserve_flow(rcd, last);
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  return ret;
}

void caller_release_flow(hfi1_ctxtdata* rcd, int idx) {
  if (idx < 0 || idx >= BITS_PER_LONG) {
    // clear_bit beyond the word is memory corruption in the kernel too.
    std::fprintf(stderr, "caller_release_flow: index %d outside flow_mask\n", idx);
    std::abort();
  }
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  clear_bit(idx, &rcd->flow_mask);
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
}
