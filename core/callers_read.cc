// core/callers_read.cc: the TID READ requester's callers (core/callers.h):
// the send engine's TID READ branch (hfi1_make_rc_req in rc.c) around the
// kernel's hfi1_build_tid_rdma_read_req, the READ response's resource part
// (hfi1_rc_rcv_tid_rdma_read_resp), and the READ's end at a QP reset or
// error. All under the QP's s_lock, as the kernel's.
#include <cerrno>

#include "core/callers.h"
#include "core/callers_internal.h"
#include "core/exp_rcv.h"
#include "core/tid_rdma.h"

using callers_internal::AuditCrossRoleClear;
using callers_internal::FlowBefore;
using callers_internal::FlowOf;
using callers_internal::ObserveWithSLock;
using callers_internal::PendingSegments;
using callers_internal::SLockIrqsave;

namespace {

// The QP's one send WQE (hfi1_qp_priv::model_swqe) as a TID READ. NOT
// KERNEL: the WQE's PSNs are not kept (only the builder's trace point reads
// them).
rvt_swqe ReadWqe(rvt_qp* qp) {
  return rvt_swqe{qp->priv->model_swqe, ib_send_wr_model{IB_WR_TID_RDMA_READ}, 0, 0};
}

// setup_tid_rdma_wqe's TID READ part, run when the READ is posted
// (hfi1_post_send): the WQE's flow array, its segments, the QP's count of
// TID READs. NOT KERNEL: the READ is model_read_segs segments long (the
// kernel: its length over remote->max_len), each the pages its segment op
// lays out.
int PostRead(rvt_qp* qp, tid_rdma_request* req) __must_hold(&qp->s_lock) {
  hfi1_qp_priv* qpriv = qp->priv;
  if (hfi1_kern_exp_rcv_alloc_flows(req, GFP_ATOMIC)) return -ENOMEM;
  req->seg_len = qpriv->tid_rdma.local.max_len;
  req->total_segs = qpriv->model_read_segs;
  req->n_flows = TID_RDMA_MAX_READ_SEGS_PER_REQ;  // remote->max_read
  qpriv->tid_r_reqs++;
  req->cur_seg = 0;
  req->comp_seg = 0;
  req->ack_seg = 0;
  req->state = TID_REQUEST_INACTIVE;
  req->acked_tail = req->setup_head;
  qpriv->model_read_posted = true;
  return 0;
}

// The bytes of the READ's next segment: a segment that waited for TIDs is
// retried with its pagesets as they were computed (hfi1_kern_exp_rcv_setup:
// "called again with previous arguments"), whatever `pset_pages` says now.
u32 NextSegmentBytes(const tid_rdma_request& req, const u8* pset_pages, u8 psets) {
  u32 pages = 0;
  if (tid_request_has_waiting_segment(req)) {
    const tid_rdma_flow& next = req.flows[req.setup_head];
    for (int i = 0; i < next.npagesets; ++i) pages += next.pagesets[i].count;
  } else {
    for (int i = 0; i < psets; ++i) pages += pset_pages[i];
  }
  return pages << PAGE_SHIFT;
}

// The WQE completes (rc.c's completion, hfi1_trdma_send_complete ->
// trdma_clean_swqe): its flow array is freed; the next READ is a new WQE.
void EndRead(rvt_qp* qp) __must_hold(&qp->s_lock) {
  rvt_swqe wqe = ReadWqe(qp);
  trdma_clean_swqe(qp, &wqe);
  qp->priv->model_read_posted = false;
}

}  // namespace

int read_req_pending_segments(rvt_qp* qp) { return PendingSegments(qp->priv->model_swqe->tid_req); }

// The segment callers hold qp->s_lock; the request's qp is that QP, which
// the analysis cannot see (hfi1_kern_exp_rcv_* assert s_lock at run time).
int caller_read_req_segment(rvt_qp* qp, const u8* pset_pages, u8 psets,
                            CallerObserver* observer) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  hfi1_qp_priv* qpriv = qp->priv;
  tid_rdma_request* req = &qpriv->model_swqe->tid_req;
  SLockIrqsave lock(qp);
  const FlowBefore before = FlowOf(qp);
  int ret = 0;
  // NOT KERNEL: the QP's application posts the next READ as soon as the
  // last one completed.
  if (!qpriv->model_read_posted) ret = PostRead(qp, req);
  // Every segment sent: the send engine is done with this WQE.
  if (ret == 0 && req->cur_seg >= req->total_segs) ret = -EBUSY;
  // rc.c: "Don't allow more operations to be started than the QP limits
  // allow."
  if (ret == 0 && qp->s_num_rd_atomic >= qp->s_max_rd_atomic) {
    qp->s_flags |= RVT_S_WAIT_RDMAR;
    ret = -EBUSY;
  }
  bool sent = false;
  if (ret == 0) {
    // NOT KERNEL: s_sge holds the next segment's pages (the kernel's walks
    // the WQE's memory, segment after segment).
    qp->s_sge = rvt_sge_state{pset_pages, psets};
    // newreq: the WQE's first segment is not sent yet (rc.c: s_cur ==
    // s_tail). "If the pages have been walked and mapped, skip it. An
    // earlier try has failed to allocate the TID entries."
    if (req->cur_seg == 0 && !req->flows[req->setup_head].npagesets) {
      req->isge = 0;
      req->clear_tail = req->setup_head;
      req->flow_idx = req->setup_head;
      req->state = TID_REQUEST_ACTIVE;
    }
    req->s_next_psn = qp->s_psn;
    /* Read one segment at a time */
    u32 len = NextSegmentBytes(*req, pset_pages, psets);
    u32 bth1 = 0, bth2 = 0;
    rvt_swqe wqe = ReadWqe(qp);
    sent = hfi1_build_tid_rdma_read_req(qp, &wqe, nullptr, &bth1, &bth2, &len) > 0;
    if (sent) qp->s_psn = req->s_next_psn;
  }
  AuditCrossRoleClear(qp, before, write_req_pending_segments(qp));
  // What the builder did, read under exp_lock (the QP's wait node): 0 sent;
  // -EBUSY waiting at a sync point for responses; -EAGAIN queued (for a
  // flow, or for TIDs: req->state QUEUED); -EINVAL the ring full (QUEUED
  // too, on no queue).
  hfi1_ctxtdata* rcd = qpriv->rcd;
  spin_lock(&rcd->exp_lock);
  if (ret == 0 && !sent) {
    ret = req->state == TID_REQUEST_SYNC ? -EBUSY
          : !list_empty(&qpriv->tid_wait) ? -EAGAIN
                                          : -EINVAL;
  }
  if (observer != nullptr) {
    observer->UnderLock(rcd, CallerEvent{CallerOp::kReadReqSegment, qp, psets, ret});
  }
  spin_unlock(&rcd->exp_lock);
  return ret;
}

// hfi1_rc_rcv_tid_rdma_read_resp for the last packet of the oldest segment
// in flight, its resource steps in the kernel's order.
int caller_read_resp_segment(rvt_qp* qp, CallerObserver* observer)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  hfi1_qp_priv* priv = qp->priv;
  tid_rdma_request* req = &priv->model_swqe->tid_req;
  SLockIrqsave lock(qp);
  const FlowBefore before = FlowOf(qp);
  int ret = -EINVAL;  // no READ segment in flight: no response to come
  if (priv->model_read_posted && PendingSegments(*req) != 0) {
    req->ack_pending--;
    priv->pending_tid_r_segs--;
    qp->s_num_rd_atomic--;
    // NOT KERNEL: the kernel then calls hfi1_schedule_send(qp) here and at
    // the end; the harness's next READ op is the send engine's turn.
    if (qp->s_flags & RVT_S_WAIT_RDMAR) qp->s_flags &= ~(RVT_S_WAIT_RDMAR | RVT_S_WAIT_ACK);
    /* Release the tid resources */
    hfi1_kern_exp_rcv_clear(req);
    // do_rc_ack: the segment's ACK; the last one completes the WQE.
    if (req->comp_seg + 1 >= req->total_segs) EndRead(qp);
    /* If not done yet, build next read request */
    if (++req->comp_seg >= req->total_segs) {
      priv->tid_r_comp++;
      req->state = TID_REQUEST_COMPLETE;
    }
    /*
     * Clear the hw flow under two conditions:
     * 1. This request is a sync point and it is complete;
     * 2. Current request is completed and there are no more requests.
     */
    if ((req->state == TID_REQUEST_SYNC && req->comp_seg == req->cur_seg) ||
        priv->tid_r_comp == priv->tid_r_reqs) {
      hfi1_kern_clear_hw_flow(priv->rcd, qp);
      priv->s_flags &= ~HFI1_R_TID_SW_PSN;
      if (req->state == TID_REQUEST_SYNC) req->state = TID_REQUEST_ACTIVE;
    }
    ret = 0;
  }
  // Neither condition looks at the WRITE responder's segments ([R-10]).
  AuditCrossRoleClear(qp, before, write_req_pending_segments(qp));
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kReadRespSegment, 0, ret);
  return ret;
}

void caller_read_req_clear_all(rvt_qp* qp, CallerObserver* observer)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  hfi1_qp_priv* priv = qp->priv;
  tid_rdma_request* req = &priv->model_swqe->tid_req;
  SLockIrqsave lock(qp);
  long freed = 0;  // for the observer: a call that freed nothing changed nothing
  if (req->flows != nullptr) {
    freed = CIRC_CNT(req->setup_head, req->clear_tail, MAX_FLOWS);
    hfi1_kern_exp_rcv_clear_all(req);
  }
  // The QP reset ends the READ: its WQE is flushed (never counted in
  // tid_r_comp, as in the kernel), and the requester's counts start again
  // as reset_psn sets them.
  if (priv->model_read_posted) EndRead(qp);
  req->ack_pending = 0;
  priv->pending_tid_r_segs = 0;
  qp->s_num_rd_atomic = 0;
  qp->s_flags &= ~RVT_S_WAIT_RDMAR;
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kReadReqClearAll, freed, 0);
}

void caller_read_req_flush_complete(rvt_qp* qp, CallerObserver* observer)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  SLockIrqsave lock(qp);
  // NOT KERNEL, model audit: the entries the ring's set-up segments hold,
  // which no one can clear once the flow array is gone ([R-6]).
  qp->priv->rcd->rcvarray_audit.orphaned_entries.fetch_add(
      tid_request_held_entries(qp->priv->model_swqe->tid_req), std::memory_order_relaxed);
  // "We are in the error state, flush the work request."
  EndRead(qp);
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kReadReqFlushComplete, 0, 0);
}
