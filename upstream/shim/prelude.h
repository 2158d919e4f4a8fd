// upstream/shim/prelude.h: what the kernel's tid_rdma.c functions need to
// compile as C++ against core's structures. Included once, first, by the
// generated translation unit (upstream/extract_kernel.py); never by anything
// else. The kernel's own text follows it unchanged; a driver profile's name
// map (upstream/profiles/) is a list of #defines between the two.
//
// Three kinds of declarations:
//  1. core's headers: the structures (hfi1_ctxtdata, rvt_qp, hfi1_qp_priv,
//     tid_queue, ...) and helpers (bitops, list, workqueue, lockcheck's
//     spinlocks and lockdep) under the kernel's names;
//  2. shims for the few kernel names core does not model (BUILD_BUG_ON, two
//     trace points, the port/CPU lookup of tid_rdma_schedule_tid_wakeup);
//     upstream/shim/apis.txt lists every API the text may call;
//  3. prototypes: annotations the kernel does not write but Clang's
//     thread-safety analysis needs on the (renamed) definitions, and the
//     audited wrappers the kernel's own calls are redirected to
//     (functions.txt, calls=), defined in upstream/trampolines.h.
#ifndef FLOWCHECK_UPSTREAM_SHIM_PRELUDE_H_
#define FLOWCHECK_UPSTREAM_SHIM_PRELUDE_H_

#include <cstddef>

#include "absl/base/thread_annotations.h"
#include "core/bitops.h"
#include "core/exp_rcv.h"
#include "core/hfi1.h"
#include "core/hfi1_constants.h"
#include "core/known_races.h"
#include "core/list.h"
#include "core/model_audit.h"
#include "core/qp.h"
#include "core/tid_rdma.h"
#include "core/workqueue.h"
#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/spinlock.h"

// ---- 2. Kernel names core does not model ---------------------------------

// linux/build_bug.h.
#define BUILD_BUG_ON(condition) static_assert(!(condition), "BUILD_BUG_ON(" #condition ")")

// trace.h: the QP sleep/wakeup trace points. No tracing here; the arguments
// are still type-checked.
inline void trace_hfi1_qpsleep(struct rvt_qp *qp, u32 flags) { (void)qp, (void)flags; }
inline void trace_hfi1_qpwakeup(struct rvt_qp *qp, u32 flags) { (void)qp, (void)flags; }
// The RcvArray side's trace points (tid_flow_alloc, tid_node_add,
// msg_alloc_tids, tid_entry_alloc): nothing reads a trace here either.
template <typename... A> inline void trace_hfi1_tid_flow_alloc(A &&...) {}
template <typename... A> inline void trace_hfi1_tid_node_add(A &&...) {}
template <typename... A> inline void trace_hfi1_msg_alloc_tids(A &&...) {}
template <typename... A> inline void trace_hfi1_tid_entry_alloc(A &&...) {}
// The WRITE responder's allocator's.
template <typename... A> inline void trace_hfi1_rsp_tid_write_alloc_res(A &&...) {}
template <typename... A> inline void trace_hfi1_tid_write_rsp_alloc_res(A &&...) {}
template <typename... A> inline void trace_hfi1_tid_req_write_alloc_res(A &&...) {}
// The READ requester's.
template <typename... A> inline void trace_hfi1_tid_req_build_read_req(A &&...) {}

// tid_rdma_schedule_tid_wakeup() finds the work queue through the QP's port:
//   ibp = to_iport(qp->ibqp.device, qp->port_num); ppd = ppd_from_ibp(ibp);
//   dd = dd_from_ibdev(qp->ibqp.device); queue_work_on(cpu, ppd->hfi1_wq, ...)
// The model's device has one port whose data is the device's own
// (hfi1_devdata::hfi1_wq is ppd->hfi1_wq), and rvt_qp has no ibqp/port_num:
// the port types are the device, and the lookups take the device of the
// function's `qp` (the macro arguments, which name fields the model does not
// have, are discarded by the preprocessor, never compiled).
#define hfi1_ibport hfi1_devdata
#define hfi1_pportdata hfi1_devdata
#define to_iport(ibdev, port) ((qp)->priv->rcd->dd)
#define ppd_from_ibp(ibp) (ibp)
#define dd_from_ibdev(ibdev) ((qp)->priv->rcd->dd)
// hfi2 (profile hfi2) keeps the queue in the device, dd->hfi2_wq (mapped to
// hfi1_wq), and looks up only dd: the same dd_from_ibdev shim serves it.
// Its per-chip flow table register, dd->params->rcv_tid_flow_table_reg, is
// hfi1_devdata::params in core/hfi1.h.
// The CPU the work runs on (the QP's SDMA engine's, or the first of the
// device's NUMA node) is not modelled: core's queue_work_on ignores it, so the
// expression is discarded unevaluated, like the lookups above.
#define queue_work_on(cpu, wq, work) queue_work_on(0, wq, work)

// APIs whose spelling depends on the kernel version (get_random_u32 or
// prandom_u32) are not here: upstream/shim/api/ has one header per spelling,
// and the generated unit includes the ones its text calls (shim/apis.txt).

// ---- 3. Prototypes -------------------------------------------------------
// Not annotated in the kernel: both take exp_lock themselves and call
// functions that need the QP's s_lock (kernel_tid_waiters,
// __trigger_tid_waiter), so their callers hold it, as core/tid_rdma.h says.
int upstream_hfi1_kern_setup_hw_flow(struct hfi1_ctxtdata *rcd, struct rvt_qp *qp)
    __must_hold(&qp->s_lock);
void upstream_hfi1_kern_clear_hw_flow(struct hfi1_ctxtdata *rcd, struct rvt_qp *qp)
    __must_hold(&qp->s_lock);
// Writes rcd->flows[] without exp_lock: the context is not shared yet.
void upstream_hfi1_kern_init_ctxt_generations(struct hfi1_ctxtdata *rcd)
    ABSL_NO_THREAD_SAFETY_ANALYSIS;

// The audited calls (functions.txt calls=): the kernel's own calls of these
// go to wrappers (upstream/trampolines.h) that run the kernel's function
// through core's audited wrappers (core/model_audit.h), the same ones core's
// mirror calls, so CheckInvariants judges the kernel's text exactly as it
// judges core's.
//
// F4: kern_clear_hw_flow moved the flow's generation from old to new.
static void upstream_audited_kern_clear_hw_flow(struct hfi1_ctxtdata *rcd, u32 flow_idx)
    __must_hold(&rcd->exp_lock);
// W4: hfi1_kern_setup_hw_flow calls dequeue_tid_waiter exactly once per
// grant, right after kern_reserve_flow succeeded and before any queue changes.
static void upstream_granted_dequeue_tid_waiter(struct hfi1_ctxtdata *rcd,
                                                struct tid_queue *queue, struct rvt_qp *qp)
    __must_hold(&rcd->exp_lock) __must_hold(&qp->s_lock);
// hfi1_tid_write_alloc_resources reads a queue's dequeue counter
// without exp_lock (core/known_races.h: hidden from TSan unless asked for).
static u32 upstream_r11_position_in_queue(struct hfi1_qp_priv *qpriv, struct tid_queue *queue);
// W5: every list_del_init of the kernel's text (dequeue_tid_waiter,
// _tid_rdma_flush_wait) is the removal of a QP's tid_wait node from a TID
// queue, under exp_lock, charged to the function's `queue` ([R-1] when it is
// not the one the node is on); core's tid_rdma_wait.cc has the same line.
#define list_del_init(entry) hfi1_audited_list_del_init(queue, entry)

#endif  // FLOWCHECK_UPSTREAM_SHIM_PRELUDE_H_
