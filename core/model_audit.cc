// core/model_audit.cc: NOT KERNEL; see model_audit.h.
#include "core/model_audit.h"

#include "lockcheck/lockdep.h"

namespace {

// Whether `node` is linked on `queue` (bounded walk: a corrupted list must not
// hang the model; CheckInvariants reports the corruption).
bool OnQueue(const tid_queue* queue, const list_head* node) {
  const list_head* p = queue->queue_head.next;
  for (int steps = 0; p != &queue->queue_head && steps < (1 << 20); ++steps) {
    if (p == node) return true;
    p = p->next;
  }
  return false;
}

}  // namespace

void hfi1_model_audit_grant(hfi1_ctxtdata* rcd, rvt_qp* qp) {
  lockdep_assert_held(&rcd->exp_lock);
  hfi1_flow_audit& a = rcd->audit;
  ++a.grants;
  const list_head* head = &rcd->flow_queue.queue_head;
  if (list_empty(head)) return;
  const hfi1_qp_priv* first =
      list_first_entry(const_cast<list_head*>(head), hfi1_qp_priv, tid_wait);
  if (first->owner == qp) return;
  ++a.out_of_order_grants;
  a.last_out_of_order_qpn = qp->qp_num;
  a.last_out_of_order_head_qpn = first->owner->qp_num;
}

void hfi1_model_audit_clear(hfi1_ctxtdata* rcd, u32 idx, u32 old_gen, u32 new_gen) {
  lockdep_assert_held(&rcd->exp_lock);
  if (idx >= static_cast<u32>(RXE_NUM_TID_FLOWS)) return;
  auto& c = rcd->audit.clear[idx];
  ++c.clears;
  c.old_gen = old_gen;
  c.new_gen = new_gen;
}

void hfi1_model_audit_removal(hfi1_ctxtdata* rcd, const tid_queue* charged,
                              const hfi1_qp_priv* priv) {
  lockdep_assert_held(&rcd->exp_lock);
  const tid_queue* flow = &rcd->flow_queue;
  const tid_queue* rarr = &rcd->rarr_queue;
  const tid_queue* really_on = OnQueue(flow, &priv->tid_wait)   ? flow
                               : OnQueue(rarr, &priv->tid_wait) ? rarr
                                                                : nullptr;
  if (really_on == nullptr || really_on == charged) return;
  hfi1_flow_audit& a = rcd->audit;
  ++a.mischarged_removals;
  // The charged queue counts one removal too many, the other one too few.
  (charged == flow ? a.flow_queue_drift : a.rarr_queue_drift) -= 1;
  (really_on == flow ? a.flow_queue_drift : a.rarr_queue_drift) += 1;
}

void hfi1_audited_kern_clear_hw_flow(void (*clear)(hfi1_ctxtdata*, u32), hfi1_ctxtdata* rcd,
                                     u32 flow_idx) {
  const u32 old_gen = rcd->flows[flow_idx].generation;
  clear(rcd, flow_idx);
  hfi1_model_audit_clear(rcd, flow_idx, old_gen, rcd->flows[flow_idx].generation);
}

void hfi1_granted_dequeue_tid_waiter(void (*dequeue)(hfi1_ctxtdata*, tid_queue*, rvt_qp*),
                                     hfi1_ctxtdata* rcd, tid_queue* queue, rvt_qp* qp) {
  if (queue == &rcd->flow_queue) hfi1_model_audit_grant(rcd, qp);
  dequeue(rcd, queue, qp);
}

void hfi1_audited_list_del_init(const tid_queue* charged, list_head* entry)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {  // exp_lock of the node's context, asserted
  hfi1_qp_priv* priv = container_of(entry, hfi1_qp_priv, tid_wait);
  lockdep_assert_held(&priv->rcd->exp_lock);
  hfi1_model_audit_removal(priv->rcd, charged, priv);
  list_del_init(entry);
}
