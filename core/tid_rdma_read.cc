// core/tid_rdma_read.cc: the TID READ requester's resource steps, following
// drivers/infiniband/hw/hfi1/tid_rdma.c (v6.1): hfi1_build_tid_rdma_read_req
// (docs/core.md, "The READ requester"). The body is the kernel's, its trace
// point left out; upstream mode compiles the kernel's own text instead
// (upstream/functions.txt). What it calls below it, the packet builder and
// restart_sge, are the model's (core/exp_rcv.cc).
#include "core/exp_rcv.h"
#include "core/hfi1.h"
#include "core/qp.h"
#include "core/tid_rdma.h"

// Kernel: tid_rdma.c hfi1_build_tid_rdma_read_req().
// @len: contains the data length to read upon entry and the read request
//       payload length upon exit.
// hfi1_kern_exp_rcv_setup needs req->qp->s_lock, which the analysis cannot
// tie to `qp`'s (lockdep_assert_held checks it at run time): that warning
// is off for this function, as upstream/functions.txt's allow= does for the
// kernel's text.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wthread-safety-precise"
u32 hfi1_build_tid_rdma_read_req(struct rvt_qp *qp, struct rvt_swqe *wqe,
                                 struct ib_other_headers *ohdr, u32 *bth1,
                                 u32 *bth2, u32 *len) {
  struct hfi1_qp_priv *qpriv = qp->priv;
  struct tid_rdma_request *req = wqe_to_tid_req(wqe);
  struct tid_rdma_flow *flow = NULL;
  u32 hdwords = 0;
  bool last;
  bool retry = true;
  u32 npkts = rvt_div_round_up_mtu(qp, *len);

  /*
   * Check sync conditions. Make sure that there are no pending
   * segments before freeing the flow.
   */
sync_check:
  if (req->state == TID_REQUEST_SYNC) {
    if (qpriv->pending_tid_r_segs)
      goto done;

    hfi1_kern_clear_hw_flow(req->rcd, qp);
    qpriv->s_flags &= ~HFI1_R_TID_SW_PSN;
    req->state = TID_REQUEST_ACTIVE;
  }

  /*
   * If the request for this segment is resent, the tid resources should
   * have been allocated before. In this case, req->flow_idx should
   * fall behind req->setup_head.
   */
  if (req->flow_idx == req->setup_head) {
    retry = false;
    if (req->state == TID_REQUEST_RESEND) {
      /*
       * This is the first new segment for a request whose
       * earlier segments have been re-sent. We need to
       * set up the sge pointer correctly.
       */
      restart_sge(&qp->s_sge, wqe, req->s_next_psn,
                  qp->pmtu);
      req->isge = 0;
      req->state = TID_REQUEST_ACTIVE;
    }

    /*
     * Check sync. The last PSN of each generation is reserved for
     * RESYNC.
     */
    if ((qpriv->flow_state.psn + npkts) > MAX_TID_FLOW_PSN - 1) {
      req->state = TID_REQUEST_SYNC;
      goto sync_check;
    }

    /* Allocate the flow if not yet */
    if (hfi1_kern_setup_hw_flow(qpriv->rcd, qp))
      goto done;

    /*
     * The following call will advance req->setup_head after
     * allocating the tid entries.
     */
    if (hfi1_kern_exp_rcv_setup(req, &qp->s_sge, &last)) {
      req->state = TID_REQUEST_QUEUED;

      /*
       * We don't have resources for this segment. The QP has
       * already been queued.
       */
      goto done;
    }
  }

  /* req->flow_idx should only be one slot behind req->setup_head */
  flow = &req->flows[req->flow_idx];
  flow->pkt = 0;
  flow->tid_idx = 0;
  flow->sent = 0;
  if (!retry) {
    /* Set the first and last IB PSN for the flow in use.*/
    flow->flow_state.ib_spsn = req->s_next_psn;
    flow->flow_state.ib_lpsn =
        flow->flow_state.ib_spsn + flow->npkts - 1;
  }

  /* Calculate the next segment start psn.*/
  req->s_next_psn += flow->npkts;

  /* Build the packet header */
  hdwords = hfi1_build_tid_rdma_read_packet(wqe, ohdr, bth1, bth2, len);
done:
  return hdwords;
}
#pragma clang diagnostic pop
