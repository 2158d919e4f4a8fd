// core/callers.h: the flow layer as the driver's callers invoke it, each with
// exactly the locks that caller holds (spec sections 3, 4.10, 5.10, 6.6-6.7).
// Fuzz targets, stress threads and tests drive the model through these; each
// is called with NO lock held, takes what it needs, and releases it.
//
//   caller_setup_hw_flow(qp)     send engine building a segment: s_lock (irq)
//                                -> hfi1_kern_setup_hw_flow; returns 0/-EAGAIN
//   caller_clear_hw_flow(qp)     sync point / completion: s_lock (irq)
//                                -> hfi1_kern_clear_hw_flow
//   caller_flush_wait(qp)        QP error/reset: s_lock (irq) -> flush_qp_waiters
//   caller_rarr_wait(qp)         hfi1_kern_exp_rcv_setup finding no RcvArray
//                                space: s_lock, exp_lock -> queue on rarr_queue
//   caller_rarr_grant(qp)        hfi1_kern_exp_rcv_setup succeeding: s_lock,
//                                exp_lock -> dequeue_tid_waiter(rarr_queue),
//                                first_qp(rarr_queue); unlock; wake it
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
// The rarr_* functions model only the wait-queue half of the RcvArray (TID)
// allocator; TID groups are outside this model's scope.
#ifndef FLOWCHECK_CORE_CALLERS_H_
#define FLOWCHECK_CORE_CALLERS_H_

#include "core/hfi1.h"
#include "core/qp.h"

int caller_setup_hw_flow(rvt_qp* qp);
void caller_clear_hw_flow(rvt_qp* qp);
void caller_flush_wait(rvt_qp* qp);
void caller_rarr_wait(rvt_qp* qp);
void caller_rarr_grant(rvt_qp* qp);
void caller_rarr_release(rvt_qp* qp);
void caller_set_wants_flow(rvt_qp* qp, bool wants_flow);
bool caller_resync(rvt_qp* qp, u32 psn);
void caller_clear_resync(rvt_qp* qp);
int caller_reserve_flow(hfi1_ctxtdata* rcd, int last);
void caller_release_flow(hfi1_ctxtdata* rcd, int idx);

#endif  // FLOWCHECK_CORE_CALLERS_H_
