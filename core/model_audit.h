// core/model_audit.h: NOT KERNEL. How the flow layer's transitions are
// recorded as hfi1_flow_audit facts (core/hfi1.h) for CheckInvariants, from
// outside the function bodies: core's mirror (tid_rdma_flow.cc,
// tid_rdma_wait.cc) and the kernel's own text (upstream mode,
// upstream/functions.txt calls= and upstream/shim/prelude.h) send the same
// calls through the same audited wrappers below, so both bodies stay exactly
// the kernel's. The hooks only observe: they read the queues and write
// rcd->audit, nothing else.
#ifndef FLOWCHECK_CORE_MODEL_AUDIT_H_
#define FLOWCHECK_CORE_MODEL_AUDIT_H_

#include "core/hfi1.h"
#include "core/qp.h"

// W4: `qp` was just granted a flow by hfi1_kern_setup_hw_flow; records whether
// flow_queue was non-empty with someone else at its head.
void hfi1_model_audit_grant(hfi1_ctxtdata* rcd, rvt_qp* qp)
    __must_hold(&rcd->exp_lock);

// F4: kern_clear_hw_flow moved flow `idx` from old_gen to new_gen.
void hfi1_model_audit_clear(hfi1_ctxtdata* rcd, u32 idx, u32 old_gen,
                            u32 new_gen) __must_hold(&rcd->exp_lock);

// W5 / [R-1]: `priv`'s node is about to be unlinked with `charged` paying the
// dequeue; records a mischarge if the node is on the other queue.
void hfi1_model_audit_removal(hfi1_ctxtdata* rcd, const tid_queue* charged,
                              const hfi1_qp_priv* priv)
    __must_hold(&rcd->exp_lock);

// ---- The audited calls (the kernel's calls of these go here) --------------

// F4: runs `clear` (the text's kern_clear_hw_flow) and records the
// generation change. Where the text's own call sites are: hfi1_kern_clear_hw_flow.
void hfi1_audited_kern_clear_hw_flow(void (*clear)(hfi1_ctxtdata*, u32), hfi1_ctxtdata* rcd,
                                     u32 flow_idx) __must_hold(&rcd->exp_lock);

// W4: the text calls dequeue_tid_waiter once per grant, right after
// kern_reserve_flow succeeded and before any queue changes
// (hfi1_kern_setup_hw_flow; hfi1_kern_exp_rcv_setup for TIDs, not a flow
// grant): records the grant when `queue` is flow_queue, then runs `dequeue`.
void hfi1_granted_dequeue_tid_waiter(void (*dequeue)(hfi1_ctxtdata*, tid_queue*, rvt_qp*),
                                     hfi1_ctxtdata* rcd, tid_queue* queue, rvt_qp* qp)
    __must_hold(&rcd->exp_lock) __must_hold(&qp->s_lock);

// W5 / [R-1]: every list_del_init of the text (dequeue_tid_waiter,
// _tid_rdma_flush_wait) unlinks a QP's tid_wait node under exp_lock, with the
// function's `queue` paying the dequeue. Both texts reach it through
//   #define list_del_init(entry) hfi1_audited_list_del_init(queue, entry)
// (the `queue` in scope at the call: a text whose list_del_init has none
// fails to compile). Records a mischarge, then unlinks.
void hfi1_audited_list_del_init(const tid_queue* charged, list_head* entry);

#endif  // FLOWCHECK_CORE_MODEL_AUDIT_H_
