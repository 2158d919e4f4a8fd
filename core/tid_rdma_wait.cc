// core/tid_rdma_wait.cc: the TID wait queues and wakeups, following
// drivers/infiniband/hw/hfi1/tid_rdma.c (v6.6) in order: first_qp ..
// hfi1_tid_rdma_flush_wait, then position_in_queue (docs/kernel.md, "Wait queues").
// The bodies are the kernel's; the audit sees their list_del_init calls.
#include "core/hfi1.h"
#include "core/list.h"
#include "core/model_audit.h"
#include "core/qp.h"
#include "core/tid_rdma.h"
#include "core/workqueue.h"
#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/schedule.h"

// NOT KERNEL. Every list_del_init below unlinks a QP's tid_wait node under
// exp_lock, the function's `queue` paying the dequeue: the audit records
// which queue pays (W5, [R-1]; core/model_audit.h), as upstream/shim/prelude.h
// does for the kernel's own text.
#define list_del_init(entry) hfi1_audited_list_del_init(queue, entry)

// Kernel: tid_rdma.c first_qp().
struct rvt_qp *first_qp(struct hfi1_ctxtdata *rcd, struct tid_queue *queue) {
  struct hfi1_qp_priv *priv;

  lockdep_assert_held(&rcd->exp_lock);
  priv = list_first_entry_or_null(&queue->queue_head, struct hfi1_qp_priv,
                                  tid_wait);
  if (!priv)
    return nullptr;
  rvt_get_qp(priv->owner);
  return priv->owner;
}

// Kernel: tid_rdma.c kernel_tid_waiters().
bool kernel_tid_waiters(struct hfi1_ctxtdata *rcd, struct tid_queue *queue,
                        struct rvt_qp *qp) {
  struct rvt_qp *fqp;
  bool ret = true;

  lockdep_assert_held(&qp->s_lock);
  lockdep_assert_held(&rcd->exp_lock);
  fqp = first_qp(rcd, queue);
  // QUIRK: `qp` at the head but not flagged still gets true.
  if (!fqp || (fqp == qp && (qp->s_flags & HFI1_S_WAIT_TID_SPACE)))
    ret = false;
  rvt_put_qp(fqp);
  return ret;
}

// Kernel: tid_rdma.c dequeue_tid_waiter().
void dequeue_tid_waiter(struct hfi1_ctxtdata *rcd, struct tid_queue *queue,
                        struct rvt_qp *qp) {
  struct hfi1_qp_priv *priv = qp->priv;

  lockdep_assert_held(&qp->s_lock);
  lockdep_assert_held(&rcd->exp_lock);
  if (list_empty(&priv->tid_wait))
    return;
  // QUIRK: unlinks from whichever list the node is on, charges `queue`.
  list_del_init(&priv->tid_wait);
  qp->s_flags &= ~HFI1_S_WAIT_TID_SPACE;
  queue->dequeue++;
  rvt_put_qp(qp);
}

// Kernel: tid_rdma.c queue_qp_for_tid_wait().
void queue_qp_for_tid_wait(struct hfi1_ctxtdata *rcd, struct tid_queue *queue,
                           struct rvt_qp *qp) {
  struct hfi1_qp_priv *priv = qp->priv;

  lockdep_assert_held(&qp->s_lock);
  lockdep_assert_held(&rcd->exp_lock);
  // Already on a list (this one or the other): nothing changes.
  if (list_empty(&priv->tid_wait)) {
    qp->s_flags |= HFI1_S_WAIT_TID_SPACE;
    list_add_tail(&priv->tid_wait, &queue->queue_head);
    priv->tid_enqueue = ++queue->enqueue;
    rcd->dd->verbs_dev.n_tidwait++;
    rvt_get_qp(qp);  // the queue's reference
  }
}

// Kernel: tid_rdma.c __trigger_tid_waiter().
void __trigger_tid_waiter(struct rvt_qp *qp) {
  lockdep_assert_held(&qp->s_lock);
  if (!(qp->s_flags & HFI1_S_WAIT_TID_SPACE))
    return;
  // QUIRK: the flag stays set and the QP stays queued; its send engine
  // retries and dequeues itself on success.
  hfi1_schedule_send(qp);
}

// Kernel: tid_rdma.c tid_rdma_schedule_tid_wakeup(). The kernel picks the
// CPU of the QP's SDMA engine or the device's NUMA node; the model has one
// queue and ignores the CPU.
void tid_rdma_schedule_tid_wakeup(struct rvt_qp *qp) {
  struct hfi1_qp_priv *priv;
  bool rval;

  if (!qp)
    return;

  priv = qp->priv;
  rval = queue_work_on(0, priv->rcd->dd->hfi1_wq, &priv->tid_rdma.trigger_work);
  // Already pending: that item owns a reference already; drop ours.
  if (!rval)
    rvt_put_qp(qp);
}

// Kernel: tid_rdma.c tid_rdma_trigger_resume().
void tid_rdma_trigger_resume(struct work_struct *work) {
  struct tid_rdma_qp_params *tr;
  struct hfi1_qp_priv *priv;
  struct rvt_qp *qp;

  tr = container_of(work, struct tid_rdma_qp_params, trigger_work);
  priv = container_of(tr, struct hfi1_qp_priv, tid_rdma);
  qp = priv->owner;
  spin_lock_irq(&qp->s_lock);
  if (qp->s_flags & HFI1_S_WAIT_TID_SPACE) {
    spin_unlock_irq(&qp->s_lock);
    hfi1_do_send(priv->owner, true);
  } else {
    spin_unlock_irq(&qp->s_lock);
  }
  rvt_put_qp(qp);  // the reference the work item owned
}

// Kernel: tid_rdma.c _tid_rdma_flush_wait().
void _tid_rdma_flush_wait(struct rvt_qp *qp, struct tid_queue *queue) {
  struct hfi1_qp_priv *priv;

  if (!qp)
    return;
  lockdep_assert_held(&qp->s_lock);
  priv = qp->priv;
  // Cleared before exp_lock is taken: until the unlink below, the QP is on a
  // list without the flag (W2 only holds at quiescent points).
  qp->s_flags &= ~HFI1_S_WAIT_TID_SPACE;
  // Window (not kernel code): a controlled scheduler may run another thread
  // here, with the flag cleared and the QP still queued.
  lockcheck::SchedulePointNamed("_tid_rdma_flush_wait: flag cleared, exp_lock not taken");
  spin_lock(&priv->rcd->exp_lock);
  if (!list_empty(&priv->tid_wait)) {
    // QUIRK: charged to `queue` whichever list the node was on.
    list_del_init(&priv->tid_wait);
    qp->s_flags &= ~HFI1_S_WAIT_TID_SPACE;
    queue->dequeue++;
    rvt_put_qp(qp);
  }
  spin_unlock(&priv->rcd->exp_lock);
}

// Kernel: tid_rdma.c hfi1_tid_rdma_flush_wait().
void hfi1_tid_rdma_flush_wait(struct rvt_qp *qp) {
  lockdep_assert_held(&qp->s_lock);  // __must_hold only, in the kernel
  struct hfi1_qp_priv *priv = qp->priv;

  // QUIRK: flow_queue first, so a QP waiting on rarr_queue is removed
  // here and charged to flow_queue; the second call then finds nothing.
  _tid_rdma_flush_wait(qp, &priv->rcd->flow_queue);
  _tid_rdma_flush_wait(qp, &priv->rcd->rarr_queue);
}

// Kernel: tid_rdma.c position_in_queue().
u32 position_in_queue(struct hfi1_qp_priv *qpriv, struct tid_queue *queue) {
  return qpriv->tid_enqueue - queue->dequeue;
}
