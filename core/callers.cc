// core/callers.cc: see callers.h.
#include "core/callers.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "core/bitops.h"
#include "core/exp_rcv.h"
#include "core/tid_rdma.h"
#include "lockcheck/lockdep.h"

namespace {

// For callers whose flow-layer function took and dropped exp_lock itself:
// takes it again for the observer, s_lock still held (so IRQs are off and a
// plain spin_lock is the kernel's way).
void ObserveWithSLock(CallerObserver* observer, rvt_qp* qp, CallerOp op, long arg, int ret)
    __must_hold(&qp->s_lock) {
  hfi1_ctxtdata* rcd = qp->priv->rcd;
  spin_lock(&rcd->exp_lock);
  observer->UnderLock(rcd, CallerEvent{op, qp, arg, ret});
  spin_unlock(&rcd->exp_lock);
}

}  // namespace

const char* CallerOpName(CallerOp op) {
  switch (op) {
    case CallerOp::kSetupHwFlow: return "setup_hw_flow";
    case CallerOp::kClearHwFlow: return "clear_hw_flow";
    case CallerOp::kFlushWait: return "flush_wait";
    case CallerOp::kGiveUpFlowWait: return "give_up_flow_wait";
    case CallerOp::kRarrWait: return "rarr_wait";
    case CallerOp::kRarrGrant: return "rarr_grant";
    case CallerOp::kRarrRelease: return "rarr_release";
    case CallerOp::kResync: return "resync";
    case CallerOp::kClearResync: return "clear_resync";
    case CallerOp::kReserveFlow: return "reserve_flow";
    case CallerOp::kReleaseFlow: return "release_flow";
    case CallerOp::kReadReqSegment: return "read_req_segment";
    case CallerOp::kReadRespSegment: return "read_resp_segment";
    case CallerOp::kReadReqClearAll: return "read_req_clear_all";
    case CallerOp::kReadReqComplete: return "read_req_complete";
    case CallerOp::kReadReqFlushComplete: return "read_req_flush_complete";
    case CallerOp::kWriteAllocSegment: return "write_alloc_segment";
    case CallerOp::kWriteDataSegment: return "write_data_segment";
    case CallerOp::kWriteAllocIdle: return "write_alloc_idle";
  }
  return "?";
}

int caller_setup_hw_flow(rvt_qp* qp, CallerObserver* observer) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  int ret = hfi1_kern_setup_hw_flow(qp->priv->rcd, qp);
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kSetupHwFlow, 0, ret);
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return ret;
}

void caller_clear_hw_flow(rvt_qp* qp, CallerObserver* observer) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  hfi1_kern_clear_hw_flow(qp->priv->rcd, qp);
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kClearHwFlow, 0, 0);
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

void caller_flush_wait(rvt_qp* qp, CallerObserver* observer) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  flush_qp_waiters(qp);
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kFlushWait, 0, 0);
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

bool caller_give_up_flow_wait(rvt_qp* qp, CallerObserver* observer) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  // The send engine may have obtained the flow since the request layer last
  // looked; then there is nothing to give up.
  const bool flush = qp->priv->flow_state.index >= RXE_NUM_TID_FLOWS;
  if (flush) {
    flush_qp_waiters(qp);
    qp->priv->model_req.wants_flow = false;
  }
  if (observer != nullptr) {
    ObserveWithSLock(observer, qp, CallerOp::kGiveUpFlowWait, 0, flush ? 1 : 0);
  }
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return flush;
}

void caller_rarr_wait(rvt_qp* qp, CallerObserver* observer) {
  hfi1_ctxtdata* rcd = qp->priv->rcd;
  unsigned long flags, flags2;
  spin_lock_irqsave(&qp->s_lock, flags);
  spin_lock_irqsave(&rcd->exp_lock, flags2);
  queue_qp_for_tid_wait(rcd, &rcd->rarr_queue, qp);
  if (observer != nullptr) observer->UnderLock(rcd, CallerEvent{CallerOp::kRarrWait, qp, 0, 0});
  spin_unlock_irqrestore(&rcd->exp_lock, flags2);
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

// hfi1_kern_exp_rcv_setup()'s exp_lock section when the TIDs are there: the
// FIFO gate, then the grant or the queueing.
int caller_rarr_grant(rvt_qp* qp, CallerObserver* observer) {
  hfi1_ctxtdata* rcd = qp->priv->rcd;
  unsigned long flags, flags2;
  spin_lock_irqsave(&qp->s_lock, flags);
  spin_lock_irqsave(&rcd->exp_lock, flags2);
  if (kernel_tid_waiters(rcd, &rcd->rarr_queue, qp)) {
    queue_qp_for_tid_wait(rcd, &rcd->rarr_queue, qp);  // "goto queue"
    if (observer != nullptr)
      observer->UnderLock(rcd, CallerEvent{CallerOp::kRarrGrant, qp, 0, -EAGAIN});
    spin_unlock_irqrestore(&rcd->exp_lock, flags2);
    spin_unlock_irqrestore(&qp->s_lock, flags);
    return -EAGAIN;
  }
  dequeue_tid_waiter(rcd, &rcd->rarr_queue, qp);
  rvt_qp* fqp = first_qp(rcd, &rcd->rarr_queue);
  if (observer != nullptr) observer->UnderLock(rcd, CallerEvent{CallerOp::kRarrGrant, qp, 0, 0});
  spin_unlock_irqrestore(&rcd->exp_lock, flags2);
  tid_rdma_schedule_tid_wakeup(fqp);
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return 0;
}

// hfi1_kern_exp_rcv_clear() steps 2 and 4.
void caller_rarr_release(rvt_qp* qp, CallerObserver* observer) {
  hfi1_ctxtdata* rcd = qp->priv->rcd;
  unsigned long flags, flags2;
  spin_lock_irqsave(&qp->s_lock, flags);
  spin_lock_irqsave(&rcd->exp_lock, flags2);
  rvt_qp* fqp = first_qp(rcd, &rcd->rarr_queue);
  if (observer != nullptr) observer->UnderLock(rcd, CallerEvent{CallerOp::kRarrRelease, qp, 0, 0});
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

bool caller_resync(rvt_qp* qp, u32 psn, CallerObserver* observer) {
  const bool accepted = tid_rdma_rcv_resync_flow(qp, psn);
  if (observer != nullptr) {
    unsigned long flags;
    spin_lock_irqsave(&qp->s_lock, flags);
    ObserveWithSLock(observer, qp, CallerOp::kResync, static_cast<long>(psn), accepted ? 1 : 0);
    spin_unlock_irqrestore(&qp->s_lock, flags);
  }
  return accepted;
}

void caller_clear_resync(rvt_qp* qp, CallerObserver* observer) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  qp->priv->resync = false;
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kClearResync, 0, 0);
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

int caller_reserve_flow(hfi1_ctxtdata* rcd, int last, CallerObserver* observer) {
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  int ret = kern_reserve_flow(rcd, last);
  if (observer != nullptr) {
    observer->UnderLock(rcd, CallerEvent{CallerOp::kReserveFlow, nullptr, last, ret});
  }
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  return ret;
}

void caller_release_flow(hfi1_ctxtdata* rcd, int idx, CallerObserver* observer) {
  if (idx < 0 || idx >= BITS_PER_LONG) {
    // clear_bit beyond the word is memory corruption in the kernel too.
    std::fprintf(stderr, "caller_release_flow: index %d outside flow_mask\n", idx);
    std::abort();
  }
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  clear_bit(idx, &rcd->flow_mask);
  if (observer != nullptr) {
    observer->UnderLock(rcd, CallerEvent{CallerOp::kReleaseFlow, nullptr, idx, 0});
  }
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
}

namespace {

int PendingSegments(const tid_rdma_request& req) {
  return (req.setup_head - req.clear_tail) & (MAX_FLOWS - 1);
}

// rvt_div_round_up_mtu(qp, len) of the request's next segment: a segment
// that waited for TIDs is retried with its pagesets as they were computed
// (hfi1_kern_exp_rcv_setup: "called again with previous arguments"),
// whatever `pset_pages` says now; its length is theirs.
u32 NextSegmentPackets(const rvt_qp* qp, const tid_rdma_request& req, const u8* pset_pages,
                       u8 psets) {
  u32 pages = 0;
  if (tid_request_has_waiting_segment(req)) {
    const tid_rdma_flow& next = req.flows[req.setup_head];
    for (int i = 0; i < next.npagesets; ++i) pages += next.pagesets[i].count;
  } else {
    for (int i = 0; i < psets; ++i) pages += pset_pages[i];
  }
  return ((pages << PAGE_SHIFT) + qp->pmtu - 1) / qp->pmtu;
}

// hfi1_kern_exp_rcv_setup of the request's next segment, laid out as given
// (the pages the kernel's sge would map to).
int ExpRcvSetup(tid_rdma_request* req, const u8* pset_pages, u8 psets)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  rvt_sge_state ss{pset_pages, psets};
  bool last = false;
  return hfi1_kern_exp_rcv_setup(req, &ss, &last);
}

}  // namespace

bool tid_request_has_waiting_segment(const tid_rdma_request& req) {
  return req.flows != nullptr && req.flows[req.setup_head].npagesets != 0;
}

int read_req_pending_segments(rvt_qp* qp) { return PendingSegments(qp->priv->model_swqe->tid_req); }

int write_req_pending_segments(rvt_qp* qp) { return PendingSegments(qp->priv->model_ack->tid_req); }

// The segment callers hold qp->s_lock; the request's qp is that QP, which
// the analysis cannot see (hfi1_kern_exp_rcv_* assert s_lock at run time).
int caller_read_req_segment(rvt_qp* qp, const u8* pset_pages, u8 psets,
                            CallerObserver* observer) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  hfi1_qp_priv* qpriv = qp->priv;
  tid_rdma_request* req = &qpriv->model_swqe->tid_req;
  unsigned long flags;
  int ret = 0;
  spin_lock_irqsave(&qp->s_lock, flags);
  // A READ posted after the last one completed gets its flow array
  // (setup_tid_rdma_wqe, at post time, in the data path).
  if (hfi1_kern_exp_rcv_alloc_flows(req, GFP_ATOMIC) != 0) ret = -ENOMEM;
  const u32 npkts = NextSegmentPackets(qp, *req, pset_pages, psets);
  if (ret == 0 && qpriv->flow_state.psn + npkts > MAX_TID_FLOW_PSN - 1) {
    // TID_REQUEST_SYNC: with segments in flight the kernel waits for them
    // (pending_tid_r_segs); then it frees the flow for a new generation.
    if (read_req_pending_segments(qp) != 0) {
      ret = -EBUSY;
    } else {
      hfi1_kern_clear_hw_flow(qpriv->rcd, qp);
    }
  }
  if (ret == 0 && hfi1_kern_setup_hw_flow(qpriv->rcd, qp) != 0) ret = -EAGAIN;
  if (ret == 0) ret = ExpRcvSetup(req, pset_pages, psets);
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kReadReqSegment, psets, ret);
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return ret;
}

int caller_read_resp_segment(rvt_qp* qp, CallerObserver* observer)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  tid_rdma_request* req = &qp->priv->model_swqe->tid_req;
  // A completed READ (its flow array freed) has no response to come.
  const int ret = req->flows != nullptr ? hfi1_kern_exp_rcv_clear(req) : -EINVAL;
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kReadRespSegment, 0, ret);
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return ret;
}

void caller_read_req_clear_all(rvt_qp* qp, CallerObserver* observer)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  tid_rdma_request* req = &qp->priv->model_swqe->tid_req;
  long freed = 0;  // for the observer: a call that freed nothing changed nothing
  if (req->flows != nullptr) {
    freed = CIRC_CNT(req->setup_head, req->clear_tail, MAX_FLOWS);
    hfi1_kern_exp_rcv_clear_all(req);
  }
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kReadReqClearAll, freed, 0);
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

int caller_read_req_complete(rvt_qp* qp, CallerObserver* observer) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  int ret = -EBUSY;
  // A READ with a segment in flight or one not yet sent is not complete.
  if (read_req_pending_segments(qp) == 0 &&
      !tid_request_has_waiting_segment(qp->priv->model_swqe->tid_req)) {
    // "Clear the hw flow under two conditions: ... 2. Current request is
    // completed and there are no more requests." (tid_r_comp == tid_r_reqs)
    // It does not look at the WRITE responder's segments ([R-10]).
    if (qp->priv->flow_state.index < RXE_NUM_TID_FLOWS && write_req_pending_segments(qp) != 0) {
      ++qp->priv->model_cross_role_clears;
    }
    hfi1_kern_clear_hw_flow(qp->priv->rcd, qp);
    // The WQE completes (rc.c's completion: trdma_clean_swqe): its flow
    // array is freed; the next READ allocates one again.
    rvt_swqe wqe{qp->priv->model_swqe};
    trdma_clean_swqe(qp, &wqe);
    ret = 0;
  }
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kReadReqComplete, 0, ret);
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return ret;
}

void caller_read_req_flush_complete(rvt_qp* qp, CallerObserver* observer)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  // NOT KERNEL, model audit: the entries the ring's set-up segments hold,
  // which no one can clear once the flow array is gone ([R-6]).
  qp->priv->rcd->rcvarray_audit.orphaned_entries.fetch_add(
      tid_request_held_entries(qp->priv->model_swqe->tid_req), std::memory_order_relaxed);
  // "We are in the error state, flush the work request."
  rvt_swqe wqe{qp->priv->model_swqe};
  trdma_clean_swqe(qp, &wqe);
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kReadReqFlushComplete, 0, 0);
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

// hfi1_tid_write_alloc_resources' loop body for one segment, in its order
// (tid_rdma.c; the RNR NAK bookkeeping and the ack queue walk left out).
int caller_write_alloc_segment(rvt_qp* qp, const u8* pset_pages, u8 psets,
                               CallerObserver* observer) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  hfi1_qp_priv* qpriv = qp->priv;
  tid_rdma_request* req = &qpriv->model_ack->tid_req;
  unsigned long flags;
  int ret = 0;
  spin_lock_irqsave(&qp->s_lock, flags);
  if (qpriv->alloc_w_segs >= TID_RDMA_MAX_WRITE_SEGS_PER_REQ) {
    ret = -EBUSY;  // "Can allocate only a maximum of local->max_write for a QP"
  } else if (qpriv->sync_pt && qpriv->alloc_w_segs) {
    ret = -EBUSY;  // "Don't allocate at a sync point with data packets pending"
  } else if (qpriv->sync_pt) {
    // "All data received at the sync point, continue"
    hfi1_kern_clear_hw_flow(qpriv->rcd, qp);
    qpriv->sync_pt = false;
  }
  // "Allocate flow if we don't have one"
  if (ret == 0 && qpriv->flow_state.index >= RXE_NUM_TID_FLOWS &&
      hfi1_kern_setup_hw_flow(qpriv->rcd, qp) != 0) {
    ret = -EAGAIN;
  }
  if (ret == 0 &&
      qpriv->flow_state.psn + NextSegmentPackets(qp, *req, pset_pages, psets) >
          MAX_TID_FLOW_PSN - 1) {
    qpriv->sync_pt = true;  // "We are at a sync point if we run out of KDETH PSN space."
    ret = -EBUSY;
  }
  if (ret == 0) {
    ret = ExpRcvSetup(req, pset_pages, psets);
    if (ret == 0) ++qpriv->alloc_w_segs;
  }
  if (observer != nullptr) {
    ObserveWithSLock(observer, qp, CallerOp::kWriteAllocSegment, psets, ret);
  }
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return ret;
}

int caller_write_data_segment(rvt_qp* qp, CallerObserver* observer)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  int ret = -EINVAL;
  if (qp->priv->alloc_w_segs != 0) {
    ret = hfi1_kern_exp_rcv_clear(&qp->priv->model_ack->tid_req);
    if (ret == 0) --qp->priv->alloc_w_segs;
  }
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kWriteDataSegment, 0, ret);
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return ret;
}

int caller_write_alloc_idle(rvt_qp* qp, CallerObserver* observer) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  hfi1_qp_priv* qpriv = qp->priv;
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  int cleared = 0;
  if (tid_request_has_waiting_segment(qpriv->model_ack->tid_req)) {
    cleared = -EBUSY;  // the request still has that segment to allocate
  } else if (qpriv->flow_state.index < RXE_NUM_TID_FLOWS && !qpriv->alloc_w_segs) {
    // "No requests left to process ... If all data has been received, clear the flow"
    // It does not look at the READ requester's segments ([R-10]).
    if (read_req_pending_segments(qp) != 0) ++qpriv->model_cross_role_clears;
    hfi1_kern_clear_hw_flow(qpriv->rcd, qp);
    cleared = 1;
  }
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kWriteAllocIdle, 0, cleared);
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return cleared;
}
