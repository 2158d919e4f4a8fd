// core/model_audit.h: NOT KERNEL. The hooks through which the flow layer
// records hfi1_flow_audit facts (core/hfi1.h) for CheckInvariants. Each call
// site in tid_rdma_*.cc is marked "model audit"; deleting every such line
// leaves exactly the kernel's logic. The hooks only observe: they read the
// queues and write rcd->audit, nothing else.
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

#endif  // FLOWCHECK_CORE_MODEL_AUDIT_H_
