// core/tid_rdma_resync.cc: the flow part of the RESYNC handler, following
// drivers/infiniband/hw/hfi1/tid_rdma.c (v6.6) hfi1_rc_rcv_tid_rdma_resync().
// Its own file because upstream mode (docs/upstream.md)
// replaces tid_rdma_flow.cc and tid_rdma_wait.cc with the kernel's text but
// keeps this one: the kernel's handler does far more than the flow part.
// Lines marked "model audit" are not kernel (see core/model_audit.h).
#include "core/hfi1.h"
#include "core/qp.h"
#include "core/tid_rdma.h"
#include "lockcheck/lockdep.h"

// Kernel: tid_rdma.c hfi1_rc_rcv_tid_rdma_resync(), steps 1-6 (flow state).
bool tid_rdma_rcv_resync_flow(struct rvt_qp *qp, u32 psn) {
  struct hfi1_qp_priv *qpriv = qp->priv;
  struct hfi1_ctxtdata *rcd = qpriv->rcd;
  struct tid_flow_state *fs = &qpriv->flow_state;
  u32 generation, gen_next;
  unsigned long flags;
  bool accepted = false;

  generation = mask_psn(psn + 1) >> HFI1_KDETH_BTH_SEQ_SHIFT;
  spin_lock_irqsave(&qp->s_lock, flags);

  gen_next = (fs->generation == KERN_GENERATION_RESERVED)
                 ? generation
                 : kern_flow_generation_next(fs->generation);
  // QUIRK: at fs->generation 0xFFFFE, gen_next is 0 and
  // mask_generation(0 - 1) is RESERVED, which is accepted.
  if (generation != mask_generation(gen_next - 1) && generation != gen_next)
    goto bail;
  // A RESYNC is already being handled.
  if (qpriv->resync)
    goto bail;

  // IRQs are off (s_lock was taken irqsave): a plain spin_lock suffices.
  spin_lock(&rcd->exp_lock);
  if (fs->index >= RXE_NUM_TID_FLOWS) {
    // No flow: keep the generation for the next hfi1_kern_setup_hw_flow.
    fs->generation = generation;
    qpriv->model_resync_saved_gen = generation;  // model audit
  } else {
    // Reprogram the owned flow with the peer's generation.
    rcd->flows[fs->index].generation = generation;
    fs->generation = kern_setup_hw_flow(rcd, fs->index);
  }
  fs->psn = 0;
  // Not modelled: clearing HFI1_R_TID_SW_PSN, renumbering pending segments.
  spin_unlock(&rcd->exp_lock);
  qpriv->resync = true;
  accepted = true;
  // Not modelled: s_nak_state = 0 and tid_rdma_trigger_ack().
bail:
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return accepted;
}
