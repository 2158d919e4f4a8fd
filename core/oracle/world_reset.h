// core/oracle/world_reset.h: the state a Lockstep world returns to before
// each input (Lockstep::Reset), and the differential target's second world
// too (upstream/diff/model_mirror.cc).
//
// Inline on purpose: upstream/diff compiles core's model a second time with
// every function renamed (upstream/diff/model_names.h is force-included
// there), so this one text, included there, calls that instance's
// hfi1_kern_init_ctxt_generations and hfi1_qp_priv_init, and here the
// linked //core's (the model, or the kernel's text in upstream mode).
#ifndef FLOWCHECK_CORE_ORACLE_WORLD_RESET_H_
#define FLOWCHECK_CORE_ORACLE_WORLD_RESET_H_

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/hfi1.h"
#include "core/qp.h"
#include "core/tid_rdma.h"
#include "core/workqueue.h"
#include "lockcheck/spinlock.h"

namespace flowcheck {
namespace oracle {

// Cancels the QPs' deferred work, then leaves the context as
// hfi1_create_ctxtdata does (same lock, same class; generations drawn from
// `seed`, as hfi1_model_alloc_devdata seeds context 0) and the QPs as
// hfi1_model_create_qp does. Call with no lock held and no thread running
// the world's work: it takes exp_lock and each QP's s_lock itself.
inline void ResetWorld(hfi1_devdata* dd, hfi1_ctxtdata* rcd, const std::vector<rvt_qp*>& qps,
                       uint64_t seed) {
  // Deferred work first: the items belong to these QPs only.
  for (rvt_qp* qp : qps) {
    cancel_work_sync(&qp->priv->tid_rdma.trigger_work);
    cancel_work_sync(&qp->priv->s_iowait.iowork);
  }
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  rcd->flow_mask = 0;
  for (tid_flow_state& f : rcd->flows) f = {};
  for (tid_queue* q : {&rcd->flow_queue, &rcd->rarr_queue}) {
    INIT_LIST_HEAD(&q->queue_head);
    q->enqueue = q->dequeue = 0;
  }
  rcd->audit = {};
  for (rvt_qp* qp : qps) {
    qp->priv->tid_enqueue = 0;
    qp->priv->model_resync_saved_gen = KERN_GENERATION_RESERVED;
  }
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  rcd->random.state = seed;
  hfi1_kern_init_ctxt_generations(rcd);
  dd->verbs_dev.n_tidwait = 0;
  for (rvt_qp* qp : qps) {
    spin_lock_irqsave(&qp->s_lock, flags);
    qp->s_flags = 0;
    qp->priv->resync = false;
    qp->priv->model_req = hfi1_model_request();
    spin_unlock_irqrestore(&qp->s_lock, flags);
    qp->priv->flow_state = {};
    qp->refcount.store(1, std::memory_order_relaxed);
    hfi1_qp_priv_init(dd, qp);
  }
}

}  // namespace oracle
}  // namespace flowcheck

#endif  // FLOWCHECK_CORE_ORACLE_WORLD_RESET_H_
