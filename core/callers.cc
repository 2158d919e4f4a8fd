// core/callers.cc: see callers.h.
#include "core/callers.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "core/bitops.h"
#include "core/callers_internal.h"
#include "core/exp_rcv.h"
#include "core/tid_rdma.h"
#include "lockcheck/lockdep.h"

using callers_internal::ObserveWithSLock;
using callers_internal::PendingSegments;

namespace callers_internal {

void ObserveWithSLock(CallerObserver* observer, rvt_qp* qp, CallerOp op, long arg, int ret) {
  hfi1_ctxtdata* rcd = qp->priv->rcd;
  spin_lock(&rcd->exp_lock);
  observer->UnderLock(rcd, CallerEvent{op, qp, arg, ret});
  spin_unlock(&rcd->exp_lock);
}

int PendingSegments(const tid_rdma_request& req) {
  return (req.setup_head - req.clear_tail) & (MAX_FLOWS - 1);
}

FlowBefore FlowOf(const rvt_qp* qp) {
  return FlowBefore{qp->priv->flow_state.index, qp->priv->flow_state.generation};
}

void AuditCrossRoleClear(rvt_qp* qp, const FlowBefore& before, int other_pending) {
  const tid_flow_state& fs = qp->priv->flow_state;
  if (before.index < RXE_NUM_TID_FLOWS &&
      (fs.index != before.index || fs.generation != before.generation) && other_pending != 0) {
    ++qp->priv->model_cross_role_clears;
  }
}

}  // namespace callers_internal

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
    case CallerOp::kReadReqFlushComplete: return "read_req_flush_complete";
    case CallerOp::kWriteAllocSegment: return "write_alloc_segment";
    case CallerOp::kWriteDataSegment: return "write_data_segment";
    case CallerOp::kWriteAllocIdle: return "write_alloc_idle";
    case CallerOp::kWriteReqClearAll: return "write_req_clear_all";
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

bool tid_request_has_waiting_segment(const tid_rdma_request& req) {
  return req.flows != nullptr && req.flows[req.setup_head].npagesets != 0;
}

int write_req_pending_segments(rvt_qp* qp) { return PendingSegments(qp->priv->model_ack->tid_req); }

// ---- The TID WRITE responder (hfi1_tid_write_alloc_resources, run as the
// kernel's three callers run it).

namespace {

// NOT KERNEL: the model answers one TID WRITE request at a time (the ack
// queue's entries share the QP's one request): open until all its data has
// arrived. The kernel's requester may have several in the queue.
bool WriteRequestOpen(const tid_rdma_request& req) { return req.comp_seg < req.total_segs; }

// What a WRITE caller reads of the QP around its call, for its result and
// the audit.
struct WriteBefore {
  callers_internal::FlowBefore flow;
  u32 alloc_w_segs;
};

WriteBefore BeforeWrite(rvt_qp* qp) __must_hold(&qp->s_lock) {
  return WriteBefore{callers_internal::FlowOf(qp), qp->priv->alloc_w_segs};
}

// After the allocator ran: the model audit of [R-10] (the WRITE side freed
// or renewed the QP's shared flow while READ segments were live on it: the
// kernel's allocator does not look at them), then under exp_lock the
// result: -EAGAIN if the QP waits on a TID queue, else 0 if it allocated a
// segment, else -EBUSY; the observer sees it with the segments allocated.
int AfterWrite(rvt_qp* qp, const WriteBefore& before, CallerObserver* observer, CallerOp op,
               int ret) __must_hold(&qp->s_lock) {
  hfi1_qp_priv* qpriv = qp->priv;
  callers_internal::AuditCrossRoleClear(qp, before.flow, read_req_pending_segments(qp));
  const long allocated = static_cast<long>(qpriv->alloc_w_segs) - before.alloc_w_segs;
  hfi1_ctxtdata* rcd = qpriv->rcd;
  spin_lock(&rcd->exp_lock);
  if (op == CallerOp::kWriteAllocSegment) {
    ret = !list_empty(&qpriv->tid_wait) ? -EAGAIN : allocated > 0 ? 0 : -EBUSY;
  }
  if (observer != nullptr) observer->UnderLock(rcd, CallerEvent{op, qp, allocated, ret});
  spin_unlock(&rcd->exp_lock);
  return ret;
}

// hfi1_rc_rcv_tid_rdma_write_req's resource part for a new request (its
// checks passed; the ring is empty, as the kernel requires of a reused
// entry): the entry at r_head_ack_queue becomes a TID WRITE request of
// kModelWriteSegs segments, each of `psets` pagesets laid out as given
// (NOT KERNEL: the kernel's segments are local.max_len bytes of the
// request's memory region; the model's are the layout's pages), and
// r_tid_head moves past it.
void ReceiveWriteRequest(rvt_qp* qp, const u8* pset_pages, u8 psets) __must_hold(&qp->s_lock) {
  hfi1_qp_priv* qpriv = qp->priv;
  u32 next = qp->r_head_ack_queue + 1;
  if (next > rvt_size_atomic(ib_to_rvt(qp->ibqp.device))) next = 0;
  rvt_ack_entry* e = &qp->s_ack_queue[qp->r_head_ack_queue];
  tid_rdma_request* req = ack_to_tid_req(e);
  u32 pages = 0;
  for (int i = 0; i < psets; ++i) {
    e->priv->model_pset_pages[i] = pset_pages[i];
    pages += pset_pages[i];
  }
  const u32 psn = qp->r_psn;
  qp->r_psn += kModelWriteSegs - 1;
  e->opcode = TID_OP(WRITE_REQ);
  e->psn = psn;
  e->lpsn = qp->r_psn;
  req->n_flows = std::min<u16>(kModelWriteSegs, qpriv->tid_rdma.local.max_write);
  req->comp_seg = 0;
  req->alloc_seg = 0;
  req->seg_len = pages << PAGE_SHIFT;
  req->total_len = req->seg_len * kModelWriteSegs;
  req->total_segs = kModelWriteSegs;
  req->ss = rvt_sge_state{e->priv->model_pset_pages, psets};
  req->clear_tail = req->setup_head;
  req->acked_tail = req->setup_head;
  qp->r_nak_state = 0;
  qp->r_psn++;
  qp->r_head_ack_queue = next;
  qpriv->r_tid_head = qp->r_head_ack_queue;
}

// make_rc_ack (rc.c) sending the scheduled RNR NAK.
void SendRnrNak(rvt_qp* qp) __must_hold(&qp->s_lock) {
  qp->priv->rnr_nak_state = TID_RNR_NAK_SENT;
  qp->priv->model_rnr_nak_deferred = false;
}

// hfi1_rc_rcv_tid_rdma_write_req for the request resent after its RNR NAK:
// "The resent request which was previously RNR NAK'd is inserted at the
// location of the original request" and "brought back to life".
void ResendWriteRequest(rvt_qp* qp) __must_hold(&qp->s_lock) {
  hfi1_qp_priv* qpriv = qp->priv;
  const u32 size = rvt_size_atomic(ib_to_rvt(qp->ibqp.device));
  qp->r_head_ack_queue = qp->r_head_ack_queue ? qp->r_head_ack_queue - 1 : size;
  u32 next = qp->r_head_ack_queue + 1;
  if (next > size) next = 0;
  rvt_ack_entry* e = &qp->s_ack_queue[qp->r_head_ack_queue];
  qp->r_nak_state = 0;
  qp->s_nak_state = 0;
  qpriv->rnr_nak_state = TID_RNR_NAK_INIT;
  qp->r_psn = e->lpsn + 1;
  qp->r_head_ack_queue = next;
  qpriv->r_tid_head = qp->r_head_ack_queue;
}

// The receive path's locks: r_lock (irqsave), then s_lock (hfi1_ib_rcv takes
// r_lock around the packet handler, which takes s_lock).
class ReceivePathLocks {
 public:
  explicit ReceivePathLocks(rvt_qp* qp) ABSL_NO_THREAD_SAFETY_ANALYSIS : qp_(qp) {
    spin_lock_irqsave(&qp->r_lock, flags_);
    spin_lock(&qp->s_lock);
  }
  ~ReceivePathLocks() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    spin_unlock(&qp_->s_lock);
    spin_unlock_irqrestore(&qp_->r_lock, flags_);
  }
  ReceivePathLocks(const ReceivePathLocks&) = delete;
  ReceivePathLocks& operator=(const ReceivePathLocks&) = delete;

 private:
  rvt_qp* const qp_;
  unsigned long flags_ = 0;
};

}  // namespace

int caller_write_alloc_segment(rvt_qp* qp, const u8* pset_pages, u8 psets,
                               CallerObserver* observer) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  hfi1_qp_priv* qpriv = qp->priv;
  ReceivePathLocks locks(qp);
  const WriteBefore before = BeforeWrite(qp);
  bool intr_ctx = true;
  if (qpriv->rnr_nak_state != TID_RNR_NAK_INIT) {
    if (qpriv->rnr_nak_state == TID_RNR_NAK_SEND) SendRnrNak(qp);
    ResendWriteRequest(qp);
  } else if (!WriteRequestOpen(qpriv->model_ack->tid_req)) {
    ReceiveWriteRequest(qp, pset_pages, psets);
  } else {
    intr_ctx = false;  // the send engine: hfi1_build_tid_rdma_write_resp
  }
  hfi1_tid_write_alloc_resources(qp, intr_ctx);
  return AfterWrite(qp, before, observer, CallerOp::kWriteAllocSegment, 0);
}

int caller_write_data_segment(rvt_qp* qp, CallerObserver* observer)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  hfi1_qp_priv* qpriv = qp->priv;
  tid_rdma_request* req = &qpriv->model_ack->tid_req;
  ReceivePathLocks locks(qp);
  int ret = -EINVAL;
  if (qpriv->alloc_w_segs != 0) {
    // hfi1_rc_rcv_tid_rdma_write_data, the segment's last packet.
    ret = hfi1_kern_exp_rcv_clear(req);
    if (ret == 0) {
      qpriv->alloc_w_segs--;
      req->comp_seg++;
      // NOT KERNEL timing: the segment's TID ACK is built at once
      // (hfi1_build_tid_rdma_write_ack: acked_tail = clear_tail).
      req->acked_tail = req->clear_tail;
    }
  }
  const WriteBefore before = BeforeWrite(qp);
  if (ret == 0) hfi1_tid_write_alloc_resources(qp, true);
  return AfterWrite(qp, before, observer, CallerOp::kWriteDataSegment, ret);
}

int caller_write_alloc_idle(rvt_qp* qp, CallerObserver* observer) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  hfi1_qp_priv* qpriv = qp->priv;
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  const WriteBefore before = BeforeWrite(qp);
  if (qpriv->rnr_nak_state == TID_RNR_NAK_SEND) {
    SendRnrNak(qp);  // make_rc_ack: the NAK first
  } else {
    hfi1_tid_write_alloc_resources(qp, false);  // hfi1_build_tid_rdma_write_resp
  }
  const int freed = before.flow.index < RXE_NUM_TID_FLOWS &&
                    qpriv->flow_state.index >= RXE_NUM_TID_FLOWS;
  const int ret = AfterWrite(qp, before, observer, CallerOp::kWriteAllocIdle, freed);
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return ret;
}

void caller_write_req_clear_all(rvt_qp* qp, CallerObserver* observer)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  hfi1_qp_priv* qpriv = qp->priv;
  tid_rdma_request* req = &qpriv->model_ack->tid_req;
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);  // as caller_read_req_clear_all
  // hfi1_qp_kern_exp_rcv_clear_all, the ack queue's part.
  const long freed = CIRC_CNT(req->setup_head, req->clear_tail, MAX_FLOWS);
  while (hfi1_kern_exp_rcv_clear(req) == 0) {
  }
  // The QP reset's responder state (rvt_reset_qp, hfi1's qp reset): no
  // request, nothing allocated or pending, no NAK.
  req->total_segs = req->alloc_seg = req->comp_seg = 0;
  req->acked_tail = req->clear_tail;
  qpriv->alloc_w_segs = 0;
  qpriv->sync_pt = false;
  qpriv->rnr_nak_state = TID_RNR_NAK_INIT;
  qpriv->model_rnr_nak_deferred = false;
  qp->r_nak_state = qp->s_nak_state = 0;
  qpriv->r_tid_alloc = qpriv->r_tid_head = qp->r_head_ack_queue;
  if (observer != nullptr) ObserveWithSLock(observer, qp, CallerOp::kWriteReqClearAll, freed, 0);
  spin_unlock_irqrestore(&qp->s_lock, flags);
}
