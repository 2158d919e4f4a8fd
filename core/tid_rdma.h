// core/tid_rdma.h: the hfi1 TID RDMA flow layer, function by function as in
// drivers/infiniband/hw/hfi1/tid_rdma.c (Linux v6.6), as docs/kernel.md describes it ("Flows and generations", "Wait queues").
//
// Put tid_rdma_flow.cc and tid_rdma_wait.cc next to tid_rdma.c: same names,
// same order of steps, same quirks (each marked QUIRK with its hazard id, docs/kernel-hazards.md). Most
// of these are `static` in the kernel; the model exports them so the harness
// can drive and check them one by one.
//
// Lock contracts (docs/kernel.md, "Who must hold what") are enforced twice: at compile time where
// the kernel has __must_hold (Clang's thread-safety analysis: calling without
// the lock does not compile), and at run time by lockdep_assert_held at entry
// (a lockcheck report, fatal by default). Lock order: s_lock -> exp_lock; no
// s_lock is ever taken under exp_lock, and no thread holds two s_locks.
#ifndef FLOWCHECK_CORE_TID_RDMA_H_
#define FLOWCHECK_CORE_TID_RDMA_H_

#include "core/hfi1.h"
#include "core/hfi1_constants.h"
#include "core/qp.h"
#include "core/workqueue.h"
#include "lockcheck/spinlock.h"

// ---------------------------------------------------------------------------
// Flows and generations (tid_rdma_flow.cc; docs/kernel.md, "Flows and generations")
// ---------------------------------------------------------------------------

// mask_generation(): a & GENERATION_MASK. No lock.
u32 mask_generation(u32 a);

// kern_flow_generation_next(): gen + 1 (masked), skipping RESERVED, so
// 0xFFFFE -> 0 and the result is never RESERVED. No lock.
u32 kern_flow_generation_next(u32 gen);

// kern_reserve_flow(): reserves a hardware flow of `rcd`.
//   0 <= last < 32 and flow `last` free: reserves and returns `last`;
//   otherwise (last taken, or last outside 0..31: RXE_NUM_TID_FLOWS and any
//   other value, negative included, mean "don't care") the lowest free flow;
//   -EAGAIN when all 32 are taken (flow_mask then unchanged).
// Needs exp_lock (compile time and run time).
int kern_reserve_flow(struct hfi1_ctxtdata *rcd, int last)
    __must_hold(&rcd->exp_lock);

// kern_set_hw_flow(): writes flow `flow_idx`'s RcvTIDFlowTable register:
// generation << 11 | VALID | KEEP_AFTER_SEQ_ERR | KEEP_ON_GEN_ERR | both
// STATUS bits, | HDR_SUPP_EN unless generation is RESERVED. Sequence 0.
// Not annotated in the kernel (init calls it unlocked); the flow functions
// call it under exp_lock.
void kern_set_hw_flow(struct hfi1_ctxtdata *rcd, u32 generation, u32 flow_idx);

// kern_setup_hw_flow(): programs flow_idx with rcd->flows[flow_idx].generation
// and returns that generation (does not advance it). Needs exp_lock.
u32 kern_setup_hw_flow(struct hfi1_ctxtdata *rcd, u32 flow_idx)
    __must_hold(&rcd->exp_lock);

// kern_clear_hw_flow(): advances rcd->flows[flow_idx].generation to the next
// one and programs the register RESERVED (header suppression off). Does not
// touch flow_mask. Needs exp_lock.
void kern_clear_hw_flow(struct hfi1_ctxtdata *rcd, u32 flow_idx)
    __must_hold(&rcd->exp_lock);

// hfi1_kern_setup_hw_flow(): gives `qp` a hardware flow. Returns 0 (the QP
// owns one, maybe already did) or -EAGAIN (queued on flow_queue, FIFO).
// On success wakes the new head of flow_queue (trigger_work). Needs s_lock;
// takes exp_lock. Not annotated in the kernel, but it calls
// kernel_tid_waiters, which needs s_lock: annotated here.
int hfi1_kern_setup_hw_flow(struct hfi1_ctxtdata *rcd, struct rvt_qp *qp)
    __must_hold(&qp->s_lock);

// hfi1_kern_clear_hw_flow(): releases `qp`'s flow (no-op if none): advances
// the flow's generation, clears its bit, resets flow_state (last_index kept)
// and wakes the head of flow_queue (directly if it is `qp` itself). Needs
// s_lock (for __trigger_tid_waiter); takes exp_lock.
void hfi1_kern_clear_hw_flow(struct hfi1_ctxtdata *rcd, struct rvt_qp *qp)
    __must_hold(&qp->s_lock);

// hfi1_kern_init_ctxt_generations(): every flow gets a random generation
// (get_random_u32(&rcd->random), seedable) and a RESERVED register.
// QUIRK: the random value is not filtered; it may be RESERVED.
// Runs at context creation, before the context is shared: no lock.
void hfi1_kern_init_ctxt_generations(struct hfi1_ctxtdata *rcd);

// read_r_next_psn(): the low 31 bits of flow fidx's register
// (generation << 11 | next expected sequence). No lock (MMIO read).
u32 read_r_next_psn(hfi1_devdata *dd, u16 ctxt, u8 fidx);

// The flow part of hfi1_rc_rcv_tid_rdma_resync() (docs/kernel.md, "Sync points and RESYNC", receiving a RESYNC, steps 1-6):
// takes s_lock then exp_lock; accepts a RESYNC whose generation
// (mask_psn(psn + 1) >> 11) is next(fs.generation) or the one before it (any
// generation if the QP has none), unless qpriv->resync is already set; then
// saves the generation for the next setup (no flow) or reprograms the owned
// flow with it; fs.psn = 0; resync = true. Returns whether it was accepted.
// Not modelled: renumbering pending segments, SW-PSN, the ACK.
// QUIRK: at fs.generation 0xFFFFE it accepts RESERVED.
// Called with no lock held (a receive handler).
bool tid_rdma_rcv_resync_flow(struct rvt_qp *qp, u32 psn);

// ---------------------------------------------------------------------------
// Wait queues and wakeups (tid_rdma_wait.cc; docs/kernel.md, "Wait queues")
// ---------------------------------------------------------------------------

// first_qp(): the head QP of `queue` with a NEW reference, or NULL. The caller
// must consume the reference (rvt_put_qp or tid_rdma_schedule_tid_wakeup).
// Needs exp_lock.
struct rvt_qp *first_qp(struct hfi1_ctxtdata *rcd, struct tid_queue *queue)
    __must_hold(&rcd->exp_lock);

// kernel_tid_waiters(): false iff `queue` is empty or `qp` is its head AND
// flagged HFI1_S_WAIT_TID_SPACE; true otherwise. QUIRK: an unflagged head
// QP gets true (it must wait behind itself). Needs s_lock and exp_lock.
bool kernel_tid_waiters(struct hfi1_ctxtdata *rcd, struct tid_queue *queue,
                        struct rvt_qp *qp)
    __must_hold(&rcd->exp_lock) __must_hold(&qp->s_lock);

// dequeue_tid_waiter(): if `qp` is on a list: unlink, clear the flag,
// queue->dequeue++, drop the queue's reference.
// QUIRK: the node may be on the OTHER queue; `queue` is charged anyway.
// Needs s_lock and exp_lock.
void dequeue_tid_waiter(struct hfi1_ctxtdata *rcd, struct tid_queue *queue,
                        struct rvt_qp *qp)
    __must_hold(&rcd->exp_lock) __must_hold(&qp->s_lock);

// queue_qp_for_tid_wait(): if `qp` is on no list: set the flag, append it,
// tid_enqueue = ++queue->enqueue, n_tidwait++, take a reference for the
// queue. If it is on a list (either one): nothing. Needs s_lock and exp_lock.
void queue_qp_for_tid_wait(struct hfi1_ctxtdata *rcd, struct tid_queue *queue,
                           struct rvt_qp *qp)
    __must_hold(&rcd->exp_lock) __must_hold(&qp->s_lock);

// __trigger_tid_waiter(): if `qp` is flagged, hfi1_schedule_send(qp).
// QUIRK: does not clear the flag nor unlink the QP. Needs s_lock.
void __trigger_tid_waiter(struct rvt_qp *qp) __must_hold(&qp->s_lock);

// tid_rdma_schedule_tid_wakeup(): consumes a reference to `qp` (NULL: no-op):
// queues its trigger_work, which then owns the reference, or drops it if the
// work was already pending. No lock needed (callable with the caller's own
// s_lock held; never takes a lock).
void tid_rdma_schedule_tid_wakeup(struct rvt_qp *qp);

// tid_rdma_trigger_resume(): trigger_work's function. Takes s_lock (irq); if
// the QP is flagged, drops it and runs hfi1_do_send; drops the work's
// reference. Runs with no lock held.
void tid_rdma_trigger_resume(struct work_struct *work);

// _tid_rdma_flush_wait(): clears the flag, then under exp_lock (plain
// spin_lock: IRQs are already off under s_lock) unlinks `qp` from whatever
// list it is on, charging queue->dequeue and dropping the queue's reference.
// QUIRK: charged to `queue` whichever list the QP was on. Needs s_lock.
void _tid_rdma_flush_wait(struct rvt_qp *qp, struct tid_queue *queue)
    __must_hold(&qp->s_lock);

// hfi1_tid_rdma_flush_wait(): _tid_rdma_flush_wait for flow_queue, then
// rarr_queue. QUIRK: a QP on rarr_queue is charged to flow_queue.
// Needs s_lock.
void hfi1_tid_rdma_flush_wait(struct rvt_qp *qp) __must_hold(&qp->s_lock);

// position_in_queue(): qpriv->tid_enqueue - queue->dequeue (u32, wraps): the
// RNR-timeout estimate. QUIRK: drifts with. The kernel reads the counter
// without exp_lock (a benign race on an estimate); in the model, callers that
// run concurrently with queue changes should hold exp_lock, or TSan will
// report that race.
u32 position_in_queue(struct hfi1_qp_priv *qpriv, struct tid_queue *queue);

#endif  // FLOWCHECK_CORE_TID_RDMA_H_
