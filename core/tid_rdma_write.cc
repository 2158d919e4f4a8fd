// core/tid_rdma_write.cc: the TID WRITE responder's resource allocation,
// following drivers/infiniband/hw/hfi1/tid_rdma.c (v6.1) in order:
// hfi1_compute_tid_rdma_flow_wt, hfi1_compute_tid_rnr_timeout,
// hfi1_tid_write_alloc_resources (docs/core.md, "The WRITE responder").
// The bodies are the kernel's, trace points left out; upstream mode
// compiles the kernel's own text instead (upstream/functions.txt).
#include "core/exp_rcv.h"
#include "core/hfi1.h"
#include "core/known_races.h"
#include "core/qp.h"
#include "core/tid_rdma.h"
#include "lockcheck/lockdep.h"

// NOT KERNEL. The kernel's calls below of position_in_queue, made without
// exp_lock, go through hfi1_r11_position_in_queue ([R-11];
// core/known_races.h), as upstream/functions.txt's calls= sends the kernel's
// own text's.
namespace {
u32 r11_position_in_queue(struct hfi1_qp_priv *qpriv, struct tid_queue *queue) {
  return hfi1_r11_position_in_queue(&position_in_queue, qpriv, queue);
}
}  // namespace
#define position_in_queue r11_position_in_queue

// Kernel: tid_rdma.c hfi1_compute_tid_rdma_flow_wt().
u32 hfi1_compute_tid_rdma_flow_wt(struct rvt_qp *qp) {
  /*
   * Heuristic for computing the RNR timeout when waiting on the flow
   * queue. ... if a QP is at position N in the flow queue it has to wait
   * approximately (N + 1) * (number of segments between two sync points).
   */
  return (MAX_TID_FLOW_PSN * qp->pmtu) >> TID_RDMA_SEGMENT_SHIFT;
}

// Kernel: tid_rdma.c hfi1_compute_tid_rnr_timeout().
u32 hfi1_compute_tid_rnr_timeout(struct rvt_qp *qp, u32 to_seg) {
  struct hfi1_qp_priv *qpriv = qp->priv;
  u64 timeout;
  u32 bytes_per_us;
  u8 i;

  bytes_per_us = active_egress_rate(qpriv->rcd->ppd) / 8;
  timeout = (to_seg * TID_RDMA_MAX_SEGMENT_SIZE) / bytes_per_us;
  /*
   * Find the next highest value in the RNR table to the required
   * timeout. This gives the responder some padding.
   */
  for (i = 1; i <= IB_AETH_CREDIT_MASK; i++)
    if (rvt_rnr_tbl_to_usec(i) >= timeout)
      return i;
  return 0;
}

// Kernel: tid_rdma.c hfi1_tid_write_alloc_resources(). Resources are
// allocated for [request: qpriv->r_tid_alloc, segment: req->alloc_seg].
// hfi1_kern_exp_rcv_setup needs req->qp->s_lock, which the analysis cannot
// tie to `qp`'s (lockdep_assert_held checks it at run time): that warning
// is off for this function, as upstream/functions.txt's allow= does for the
// kernel's text.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wthread-safety-precise"
void hfi1_tid_write_alloc_resources(struct rvt_qp *qp, bool intr_ctx) {
  struct tid_rdma_request *req;
  struct hfi1_qp_priv *qpriv = qp->priv;
  struct hfi1_ctxtdata *rcd = qpriv->rcd;
  struct tid_rdma_params *local = &qpriv->tid_rdma.local;
  struct rvt_ack_entry *e;
  u32 npkts, to_seg;
  bool last;
  int ret = 0;

  lockdep_assert_held(&qp->s_lock);

  while (1) {
    /*
     * Don't allocate more segments if a RNR NAK has already been
     * scheduled to avoid messing up qp->r_psn: ...
     */
    if (qpriv->rnr_nak_state == TID_RNR_NAK_SEND)
      break;

    /* No requests left to process */
    if (qpriv->r_tid_alloc == qpriv->r_tid_head) {
      /* If all data has been received, clear the flow */
      if (qpriv->flow_state.index < RXE_NUM_TID_FLOWS &&
          !qpriv->alloc_w_segs) {
        hfi1_kern_clear_hw_flow(rcd, qp);
        qpriv->s_flags &= ~HFI1_R_TID_SW_PSN;
      }
      break;
    }

    e = &qp->s_ack_queue[qpriv->r_tid_alloc];
    if (e->opcode != TID_OP(WRITE_REQ))
      goto next_req;
    req = ack_to_tid_req(e);
    /* Finished allocating for all segments of this request */
    if (req->alloc_seg >= req->total_segs)
      goto next_req;

    /* Can allocate only a maximum of local->max_write for a QP */
    if (qpriv->alloc_w_segs >= local->max_write)
      break;

    /* Don't allocate at a sync point with data packets pending */
    if (qpriv->sync_pt && qpriv->alloc_w_segs)
      break;

    /* All data received at the sync point, continue */
    if (qpriv->sync_pt && !qpriv->alloc_w_segs) {
      hfi1_kern_clear_hw_flow(rcd, qp);
      qpriv->sync_pt = false;
      qpriv->s_flags &= ~HFI1_R_TID_SW_PSN;
    }

    /* Allocate flow if we don't have one */
    if (qpriv->flow_state.index >= RXE_NUM_TID_FLOWS) {
      ret = hfi1_kern_setup_hw_flow(qpriv->rcd, qp);
      if (ret) {
        to_seg = hfi1_compute_tid_rdma_flow_wt(qp) *
                 position_in_queue(qpriv, &rcd->flow_queue);
        break;
      }
    }

    npkts = rvt_div_round_up_mtu(qp, req->seg_len);

    /*
     * We are at a sync point if we run out of KDETH PSN space.
     * Last PSN of every generation is reserved for RESYNC.
     */
    if (qpriv->flow_state.psn + npkts > MAX_TID_FLOW_PSN - 1) {
      qpriv->sync_pt = true;
      break;
    }

    /*
     * If overtaking req->acked_tail, send an RNR NAK. ... we use a rather
     * arbitrary RNR timeout of (MAX_FLOWS / 2) segments
     */
    if (!CIRC_SPACE(req->setup_head, req->acked_tail,
                    MAX_FLOWS)) {
      ret = -EAGAIN;
      to_seg = MAX_FLOWS >> 1;
      tid_rdma_trigger_ack(qp);
      break;
    }

    /* Try to allocate rcv array / TID entries */
    ret = hfi1_kern_exp_rcv_setup(req, &req->ss, &last);
    if (ret == -EAGAIN)
      to_seg = position_in_queue(qpriv, &rcd->rarr_queue);
    if (ret)
      break;

    qpriv->alloc_w_segs++;
    req->alloc_seg++;
    continue;
next_req:
    /* Begin processing the next request */
    if (++qpriv->r_tid_alloc >
        rvt_size_atomic(ib_to_rvt(qp->ibqp.device)))
      qpriv->r_tid_alloc = 0;
  }

  /*
   * Schedule an RNR NAK to be sent if (a) flow or rcv array allocation
   * has failed (b) we are called from the rcv handler interrupt context
   * (c) an RNR NAK has not already been scheduled
   */
  if (ret == -EAGAIN && intr_ctx && !qp->r_nak_state)
    goto send_rnr_nak;

  return;

send_rnr_nak:
  lockdep_assert_held(&qp->r_lock);

  /* Set r_nak_state to prevent unrelated events from generating NAK's */
  qp->r_nak_state = hfi1_compute_tid_rnr_timeout(qp, to_seg) | IB_RNR_NAK;

  /* Pull back r_psn to the segment being RNR NAK'd */
  qp->r_psn = e->psn + req->alloc_seg;
  qp->r_ack_psn = qp->r_psn;
  /*
   * Pull back r_head_ack_queue to the ack entry following the request
   * being RNR NAK'd. ...
   */
  qp->r_head_ack_queue = qpriv->r_tid_alloc + 1;
  if (qp->r_head_ack_queue > rvt_size_atomic(ib_to_rvt(qp->ibqp.device)))
    qp->r_head_ack_queue = 0;
  qpriv->r_tid_head = qp->r_head_ack_queue;
  /*
   * These send side fields are used in make_rc_ack(). ...
   */
  qp->s_nak_state = qp->r_nak_state;
  qp->s_ack_psn = qp->r_ack_psn;
  /*
   * Clear the ACK PENDING flag to prevent unwanted ACK because we
   * have modified qp->s_ack_psn here.
   */
  qp->s_flags &= ~(RVT_S_ACK_PENDING);

  /*
   * qpriv->rnr_nak_state is used to determine when the scheduled RNR NAK
   * has actually been sent. ...
   */
  qpriv->rnr_nak_state = TID_RNR_NAK_SEND;

  /*
   * Schedule RNR NAK to be sent. ...
   */
  rc_defered_ack(rcd, qp);
}
#pragma clang diagnostic pop
