// core/tid_rdma_flow.cc: hardware flows and generations, following
// drivers/infiniband/hw/hfi1/tid_rdma.c (v6.6) "Flow functions" in order:
// kern_reserve_flow .. read_r_next_psn (docs/kernel.md, "Flows and generations"; RESYNC: tid_rdma_resync.cc).
// The bodies are the kernel's; the audit sees their calls of
// kern_clear_hw_flow and dequeue_tid_waiter (below, core/model_audit.h).
#include <cstdio>
#include <cstdlib>

#include "core/bitops.h"
#include "core/hfi1.h"
#include "core/model_audit.h"
#include "core/qp.h"
#include "core/tid_rdma.h"
#include "lockcheck/lockdep.h"

u32 mask_generation(u32 a) { return a & GENERATION_MASK; }

// Kernel: tid_rdma.c kern_reserve_flow(). Preferred flow first (one atomic
// test-and-set), then the first zero bit (a plain read under exp_lock) and an
// atomic set. Bit 32 always exists and is always zero (static_assert below,
// the kernel's BUILD_BUG_ON), so ffz() never runs off the word.
int kern_reserve_flow(struct hfi1_ctxtdata *rcd, int last) {
  lockdep_assert_held(&rcd->exp_lock);
  int nr;

  // The preferred flow, if it is a flow index and free.
  if (last >= 0 && last < RXE_NUM_TID_FLOWS &&
      !test_and_set_bit(last, &rcd->flow_mask))
    return last;

  nr = static_cast<int>(ffz(rcd->flow_mask));
  static_assert(RXE_NUM_TID_FLOWS < sizeof(rcd->flow_mask) * BITS_PER_BYTE,
                "flow_mask must have a spare bit above the last flow");
  if (nr > (RXE_NUM_TID_FLOWS - 1))
    return -EAGAIN;
  set_bit(nr, &rcd->flow_mask);
  return nr;
}

// Kernel: tid_rdma.c kern_set_hw_flow().
void kern_set_hw_flow(struct hfi1_ctxtdata *rcd, u32 generation, u32 flow_idx) {
  u64 reg;

  reg = (static_cast<u64>(generation) << HFI1_KDETH_BTH_SEQ_SHIFT) |
        RCV_TID_FLOW_TABLE_CTRL_FLOW_VALID_SMASK |
        RCV_TID_FLOW_TABLE_CTRL_KEEP_AFTER_SEQ_ERR_SMASK |
        RCV_TID_FLOW_TABLE_CTRL_KEEP_ON_GEN_ERR_SMASK |
        RCV_TID_FLOW_TABLE_STATUS_SEQ_MISMATCH_SMASK |
        RCV_TID_FLOW_TABLE_STATUS_GEN_MISMATCH_SMASK;

  // A reserved generation means "unused flow": no header suppression.
  if (generation != KERN_GENERATION_RESERVED)
    reg |= RCV_TID_FLOW_TABLE_CTRL_HDR_SUPP_EN_SMASK;

  write_uctxt_csr(rcd->dd, rcd->ctxt, RCV_TID_FLOW_TABLE + 8 * flow_idx, reg);
}

// Kernel: tid_rdma.c kern_setup_hw_flow().
u32 kern_setup_hw_flow(struct hfi1_ctxtdata *rcd, u32 flow_idx) {
  lockdep_assert_held(&rcd->exp_lock);  // __must_hold only, in the kernel
  u32 generation = rcd->flows[flow_idx].generation;

  kern_set_hw_flow(rcd, generation, flow_idx);
  return generation;
}

// Kernel: tid_rdma.c kern_flow_generation_next().
u32 kern_flow_generation_next(u32 gen) {
  u32 generation = mask_generation(gen + 1);

  if (generation == KERN_GENERATION_RESERVED)
    generation = mask_generation(generation + 1);
  return generation;
}

// Kernel: tid_rdma.c kern_clear_hw_flow().
void kern_clear_hw_flow(struct hfi1_ctxtdata *rcd, u32 flow_idx) {
  lockdep_assert_held(&rcd->exp_lock);  // __must_hold only, in the kernel
  rcd->flows[flow_idx].generation =
      kern_flow_generation_next(rcd->flows[flow_idx].generation);
  kern_set_hw_flow(rcd, KERN_GENERATION_RESERVED, flow_idx);
}

// NOT KERNEL. From here on the kernel's calls of kern_clear_hw_flow and
// dequeue_tid_waiter go through the audited wrappers (F4, W4;
// core/model_audit.h), as upstream/functions.txt's calls= send the kernel's
// own text's. (#undef first: upstream/diff/model_names.h may have renamed
// both for the differential copy; the references above are already taken.)
namespace {
void audited_kern_clear_hw_flow(struct hfi1_ctxtdata *rcd, u32 flow_idx)
    __must_hold(&rcd->exp_lock) {
  hfi1_audited_kern_clear_hw_flow(&kern_clear_hw_flow, rcd, flow_idx);
}
void granted_dequeue_tid_waiter(struct hfi1_ctxtdata *rcd, struct tid_queue *queue,
                                struct rvt_qp *qp) __must_hold(&rcd->exp_lock)
    __must_hold(&qp->s_lock) {
  hfi1_granted_dequeue_tid_waiter(&dequeue_tid_waiter, rcd, queue, qp);
}
}  // namespace
#undef kern_clear_hw_flow
#undef dequeue_tid_waiter
#define kern_clear_hw_flow audited_kern_clear_hw_flow
#define dequeue_tid_waiter granted_dequeue_tid_waiter

// Kernel: tid_rdma.c hfi1_kern_setup_hw_flow().
int hfi1_kern_setup_hw_flow(struct hfi1_ctxtdata *rcd, struct rvt_qp *qp) {
  lockdep_assert_held(&qp->s_lock);  // not in the kernel; see tid_rdma.h
  struct hfi1_qp_priv *qpriv = qp->priv;
  struct tid_flow_state *fs = &qpriv->flow_state;
  struct rvt_qp *fqp;
  unsigned long flags;
  int ret = 0;

  // The QP already owns a flow: nothing to do, nothing dequeued.
  if (fs->index != RXE_NUM_TID_FLOWS)
    return ret;

  spin_lock_irqsave(&rcd->exp_lock, flags);
  if (kernel_tid_waiters(rcd, &rcd->flow_queue, qp))
    goto queue;

  ret = kern_reserve_flow(rcd, fs->last_index);
  if (ret < 0)
    goto queue;
  fs->index = ret;
  fs->last_index = fs->index;

  // A generation saved by an earlier RESYNC takes precedence.
  if (fs->generation != KERN_GENERATION_RESERVED)
    rcd->flows[fs->index].generation = fs->generation;
  fs->generation = kern_setup_hw_flow(rcd, fs->index);
  fs->psn = 0;
  dequeue_tid_waiter(rcd, &rcd->flow_queue, qp);
  // Hand off: wake whoever is at the head now.
  fqp = first_qp(rcd, &rcd->flow_queue);
  spin_unlock_irqrestore(&rcd->exp_lock, flags);

  tid_rdma_schedule_tid_wakeup(fqp);
  return 0;
queue:
  queue_qp_for_tid_wait(rcd, &rcd->flow_queue, qp);
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  return -EAGAIN;
}

// Kernel: tid_rdma.c hfi1_kern_clear_hw_flow().
void hfi1_kern_clear_hw_flow(struct hfi1_ctxtdata *rcd, struct rvt_qp *qp) {
  lockdep_assert_held(&qp->s_lock);  // not in the kernel; see tid_rdma.h
  struct hfi1_qp_priv *qpriv = qp->priv;
  struct tid_flow_state *fs = &qpriv->flow_state;
  struct rvt_qp *fqp;
  unsigned long flags;

  if (fs->index >= RXE_NUM_TID_FLOWS)
    return;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  kern_clear_hw_flow(rcd, fs->index);
  clear_bit(fs->index, &rcd->flow_mask);
  fs->index = RXE_NUM_TID_FLOWS;
  fs->psn = 0;
  fs->generation = KERN_GENERATION_RESERVED;
  // last_index is kept: the same flow is preferred next time.

  fqp = first_qp(rcd, &rcd->flow_queue);
  spin_unlock_irqrestore(&rcd->exp_lock, flags);

  if (fqp == qp) {
    // The head is this QP, whose s_lock we hold: wake it directly. (Model:
    // the assert tells Clang's analysis that fqp aliases qp, and checks it.)
    lockdep_assert_held(&fqp->s_lock);
    __trigger_tid_waiter(fqp);
    rvt_put_qp(fqp);
  } else {
    tid_rdma_schedule_tid_wakeup(fqp);
  }
}

// Kernel: tid_rdma.c hfi1_kern_init_ctxt_generations(). Writes flows[] without
// exp_lock, as the kernel does: the context is not shared yet.
void hfi1_kern_init_ctxt_generations(struct hfi1_ctxtdata *rcd)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  int i;

  for (i = 0; i < RXE_NUM_TID_FLOWS; i++) {
    // QUIRK: not filtered; RESERVED with probability 2^-20 per flow.
    rcd->flows[i].generation = mask_generation(get_random_u32(&rcd->random));
    kern_set_hw_flow(rcd, KERN_GENERATION_RESERVED, i);
  }
}

// Kernel: tid_rdma.c read_r_next_psn().
u32 read_r_next_psn(hfi1_devdata *dd, u16 ctxt, u8 fidx) {
  u64 reg = read_uctxt_csr(dd, ctxt, RCV_TID_FLOW_TABLE + 8 * fidx);
  return mask_psn(static_cast<u32>(reg));
}
