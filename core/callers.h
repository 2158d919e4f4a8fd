// core/callers.h: the flow layer as the driver's callers invoke it, each with
// exactly the locks that caller holds.
// Fuzz targets, stress threads and tests drive the model through these; each
// is called with NO lock held, takes what it needs, and releases it.
//
//   caller_setup_hw_flow(qp)     send engine building a segment: s_lock (irq)
//                                -> hfi1_kern_setup_hw_flow; returns 0/-EAGAIN
//   caller_clear_hw_flow(qp)     sync point / completion: s_lock (irq)
//                                -> hfi1_kern_clear_hw_flow
//   caller_flush_wait(qp)        QP error/reset: s_lock (irq) -> flush_qp_waiters
//   caller_give_up_flow_wait(qp) NOT KERNEL: the request layer giving up a
//                                flow it waits for (QP error): s_lock (irq);
//                                if the QP owns no flow yet, flush_qp_waiters
//                                and wants_flow = false; returns whether it
//                                flushed (false: the send engine already got
//                                the flow, which the QP keeps)
//   caller_rarr_wait(qp)         hfi1_kern_exp_rcv_setup finding no RcvArray
//                                space: s_lock, exp_lock -> queue on rarr_queue
//   caller_rarr_grant(qp)        hfi1_kern_exp_rcv_setup with the TIDs there:
//                                s_lock, exp_lock -> if kernel_tid_waiters(
//                                rarr_queue, qp) (another QP first, or qp at
//                                the head unflagged): queue_qp_for_tid_wait
//                                (nothing if already on a list), -EAGAIN;
//                                else dequeue_tid_waiter(rarr_queue),
//                                first_qp(rarr_queue); unlock; wake it; 0
//   caller_rarr_release(qp)      hfi1_kern_exp_rcv_clear: s_lock; exp_lock ->
//                                first_qp(rarr_queue); unlock; wake it
//   caller_set_wants_flow(qp,b)  NOT KERNEL: the request layer's state
//                                (hfi1_model_request::wants_flow), under s_lock
//   caller_resync(qp, psn)       RESYNC packet: tid_rdma_rcv_resync_flow
//   caller_clear_resync(qp)      the RESYNC's TID ACK being built
//                                (hfi1_build_tid_rdma_write_ack clears
//                                qpriv->resync), under s_lock
//   caller_reserve_flow(rcd, l)  a bare reservation: exp_lock (irq) ->
//                                kern_reserve_flow (no QP owns the result)
//   caller_release_flow(rcd, i)  its release: exp_lock (irq) -> clear_bit;
//                                i outside 0..63 aborts (not a word bit)
//   caller_read_req_segment(qp, pset_pages, psets)
//                                the send engine's TID READ branch
//                                (hfi1_make_rc_req, core/callers_read.cc):
//                                s_lock (irq); posts a READ of
//                                model_read_segs segments if none is open
//                                (setup_tid_rdma_wqe); -EBUSY (nothing
//                                done) if every segment was sent or at the
//                                RDMAR limit (s_num_rd_atomic); else runs
//                                the kernel's hfi1_build_tid_rdma_read_req
//                                for the next segment, laid out as given:
//                                0 sent (flow and TIDs held); -EBUSY at a
//                                sync point with responses due (the
//                                generation changes once they arrived);
//                                -EAGAIN queued (flow_queue: no flow free
//                                for a new generation; rarr_queue: no TIDs);
//                                -EINVAL the ring full. A segment that
//                                waited for TIDs is retried as it was (its
//                                pagesets), whatever the new layout says
//   caller_read_resp_segment(qp) the oldest segment's READ response arrived
//                                (hfi1_rc_rcv_tid_rdma_read_resp's resource
//                                part): s_lock -> hfi1_kern_exp_rcv_clear;
//                                the READ's last completes its WQE (flow
//                                array freed) and, with tid_r_comp ==
//                                tid_r_reqs, frees the flow; at a sync
//                                point the last response due frees it too.
//                                0, or -EINVAL if no segment is in flight
//   caller_read_req_clear_all(qp) the request ends (QP reset): s_lock ->
//                                hfi1_kern_exp_rcv_clear_all; the READ's WQE
//                                is flushed (never counted in tid_r_comp)
//                                and the requester's counts reset
//   caller_read_req_flush_complete(qp) the QP is in the error state and its
//                                send engine completes the READ's WQE with a
//                                flush status (hfi1_make_rc_req's error path:
//                                hfi1_trdma_send_complete -> trdma_clean_swqe):
//                                s_lock; the flow array is freed with whatever
//                                segments the ring still holds ([R-6]: their
//                                entries are recorded as orphaned, for G5)
//   caller_write_alloc_segment(qp, pset_pages, psets)
//                                the TID WRITE requester's packet arriving at
//                                the QP as responder (hfi1_rc_rcv_tid_rdma_
//                                write_req's resource part): r_lock, s_lock
//                                (irq); if no request is open, a new one of
//                                kModelWriteSegs segments, each laid out as
//                                given, goes to the
//                                ack queue; if its RNR NAK is scheduled or
//                                sent, the NAK goes out and the request is
//                                resent; then hfi1_tid_write_alloc_resources
//                                (qp, intr_ctx = true). With a request open
//                                and no NAK, the send engine's call instead
//                                (hfi1_build_tid_rdma_write_resp: intr_ctx =
//                                false). Returns -EAGAIN if the QP waits on a
//                                TID queue afterwards, else 0 if it allocated
//                                a segment, else -EBUSY (max_write, a sync
//                                point with data pending, a scheduled RNR NAK)
//   caller_write_data_segment(qp) a segment's last data packet arrived
//                                (hfi1_rc_rcv_tid_rdma_write_data): r_lock,
//                                s_lock -> hfi1_kern_exp_rcv_clear,
//                                alloc_w_segs - 1, then
//                                hfi1_tid_write_alloc_resources(qp, true)
//                                (which may allocate more, reach a sync point
//                                or free the flow); 0, or -EINVAL (nothing
//                                done) if no segment is pending
//   caller_write_alloc_idle(qp)  the send engine (make_rc_ack): s_lock; sends
//                                a scheduled RNR NAK, else
//                                hfi1_tid_write_alloc_resources(qp, false)
//                                (hfi1_build_tid_rdma_write_resp's call: with
//                                no request left and no data pending it frees
//                                the flow). Returns 1 if the QP's flow was
//                                freed, else 0
//   caller_write_req_clear_all(qp) the request ends, as at a QP reset
//                                (hfi1_qp_kern_exp_rcv_clear_all's ack queue
//                                part, then the reset's responder state):
//                                s_lock (as caller_read_req_clear_all) ->
//                                hfi1_kern_exp_rcv_clear until the ring is
//                                empty; no request, nothing pending, no NAK
// Each WRITE caller's event (observer) carries the segments the allocator
// allocated in the call as `arg`. NOT KERNEL: a request of the model's
// requester has kModelWriteSegs segments (a 10 MiB WRITE at 256 KiB
// segments: more than max_write, so it is allocated in turns, and enough
// 64-page segments to use up a generation's PSNs, a sync point).
// The segment functions run the RcvArray side (core/exp_rcv.h) on the QP's
// one READ request (hfi1_qp_priv::model_swqe) and its one TID WRITE request
// (model_ack). Both roles share the QP's one flow (flow_state) and its one
// tid_wait node, as in the kernel. The rarr_* functions are the wait-queue
// gate alone, without TIDs.
//
// Observing a call under its locks. Every caller except caller_set_wants_flow
// takes an optional CallerObserver (nullptr by default: one pointer test, no
// other cost). If given, the caller calls observer->UnderLock() once, right
// after its flow-layer call, while it holds the context's exp_lock, and the
// QP's s_lock too for every caller that has a QP. A harness uses it to check
// what the call did, and to keep its own bookkeeping, atomically with the
// call: no other thread can touch the flow layer state exp_lock protects in
// between, nor this QP's. Where the flow-layer function takes exp_lock itself
// (setup, clear, flush, give-up, the QP side of resync), the caller takes
// exp_lock again after the function returned, still holding s_lock (resync
// takes both again); in that gap another context user may run, but nobody
// may act on this QP. For rarr_wait, rarr_grant, rarr_release, reserve and
// release the observer runs inside the very critical section of the call.
// The observer must not take s_lock or exp_lock, nor block.
#ifndef FLOWCHECK_CORE_CALLERS_H_
#define FLOWCHECK_CORE_CALLERS_H_

#include "absl/base/thread_annotations.h"
#include "core/hfi1.h"
#include "core/qp.h"

struct tid_rdma_request;

// Which caller an observed event comes from.
enum class CallerOp {
  kSetupHwFlow,
  kClearHwFlow,
  kFlushWait,
  kGiveUpFlowWait,
  kRarrWait,
  kRarrGrant,
  kRarrRelease,
  kResync,
  kClearResync,
  kReserveFlow,
  kReleaseFlow,
  kReadReqSegment,
  kReadRespSegment,
  kReadReqClearAll,
  kReadReqFlushComplete,
  kWriteAllocSegment,
  kWriteDataSegment,
  kWriteAllocIdle,
  kWriteReqClearAll,
};

// "setup_hw_flow", "reserve_flow", ...: the caller's name without "caller_".
const char* CallerOpName(CallerOp op);

// One observed call.
struct CallerEvent {
  CallerOp op;
  // The QP of the call (its s_lock is held), or nullptr for reserve/release.
  rvt_qp* qp;
  // The call's argument: `last` (reserve), the index (release), the PSN
  // (resync), the segments it freed (read_req_clear_all); 0 for the others.
  long arg;
  // The call's result: setup and rarr_grant 0 / -EAGAIN; reserve the flow / -EAGAIN;
  // the segment calls 0 or their -errno;
  // give-up and resync 1 (flushed / accepted) or 0; 0 for the others.
  int ret;
};

class CallerObserver {
 public:
  virtual ~CallerObserver() = default;
  // See the header comment: called on the calling thread, exp_lock of `rcd`
  // held (and event.qp->s_lock when event.qp is not null).
  virtual void UnderLock(hfi1_ctxtdata* rcd, const CallerEvent& event)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd->exp_lock) = 0;
};

int caller_setup_hw_flow(rvt_qp* qp, CallerObserver* observer = nullptr);
void caller_clear_hw_flow(rvt_qp* qp, CallerObserver* observer = nullptr);
void caller_flush_wait(rvt_qp* qp, CallerObserver* observer = nullptr);
bool caller_give_up_flow_wait(rvt_qp* qp, CallerObserver* observer = nullptr);
void caller_rarr_wait(rvt_qp* qp, CallerObserver* observer = nullptr);
int caller_rarr_grant(rvt_qp* qp, CallerObserver* observer = nullptr);
void caller_rarr_release(rvt_qp* qp, CallerObserver* observer = nullptr);
void caller_set_wants_flow(rvt_qp* qp, bool wants_flow);
bool caller_resync(rvt_qp* qp, u32 psn, CallerObserver* observer = nullptr);
// The PSN of the RESYNC a peer sends to move to generation `generation`:
// sequence 0x7FF of the generation before, (generation << 11) - 1, masked to
// 31 bits (the receiver takes generation = mask_psn(psn + 1) >> 11).
inline u32 resync_psn_for_generation(u32 generation) {
  return ((generation << HFI1_KDETH_BTH_SEQ_SHIFT) - 1) & PSN_MASK;
}
void caller_clear_resync(rvt_qp* qp, CallerObserver* observer = nullptr);
int caller_read_req_segment(rvt_qp* qp, const u8* pset_pages, u8 psets,
                            CallerObserver* observer = nullptr);
int caller_read_resp_segment(rvt_qp* qp, CallerObserver* observer = nullptr);
void caller_read_req_clear_all(rvt_qp* qp, CallerObserver* observer = nullptr);
void caller_read_req_flush_complete(rvt_qp* qp, CallerObserver* observer = nullptr);
inline constexpr u32 kModelWriteSegs = 40;
int caller_write_alloc_segment(rvt_qp* qp, const u8* pset_pages, u8 psets,
                               CallerObserver* observer = nullptr);
int caller_write_data_segment(rvt_qp* qp, CallerObserver* observer = nullptr);
int caller_write_alloc_idle(rvt_qp* qp, CallerObserver* observer = nullptr);
void caller_write_req_clear_all(rvt_qp* qp, CallerObserver* observer = nullptr);
// NOT KERNEL: whether the request's next segment found no TIDs and keeps
// its pagesets for its retry (the request is not done with it). The
// request's QP's s_lock.
bool tid_request_has_waiting_segment(const tid_rdma_request& req);
int caller_reserve_flow(hfi1_ctxtdata* rcd, int last, CallerObserver* observer = nullptr);
void caller_release_flow(hfi1_ctxtdata* rcd, int idx, CallerObserver* observer = nullptr);

#endif  // FLOWCHECK_CORE_CALLERS_H_
