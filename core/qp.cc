// core/qp.cc: QP references, creation and teardown, and the send engine
// (rdmavt qp.c/rdmavt_qp.h, hfi1 qp.c and ruc.c, reduced to the flow layer).
#include "core/qp.h"

#include "core/exp_rcv.h"
#include "core/tid_rdma.h"
#include "lockcheck/lockdep.h"

// rdmavt_qp.h rvt_get_qp()/rvt_put_qp(). The kernel's put wakes qp->wait at
// zero, where destroy waits; the model's teardown reads the count instead.
void rvt_get_qp(rvt_qp* qp) { qp->refcount.fetch_add(1, std::memory_order_relaxed); }

void rvt_put_qp(rvt_qp* qp) {
  if (qp) qp->refcount.fetch_sub(1, std::memory_order_acq_rel);
}

// tid_rdma.c qp_to_rcd(). The kernel maps through hfi1_get_qp_map().
hfi1_ctxtdata* qp_to_rcd(hfi1_devdata* dd, rvt_qp* qp) {
  unsigned int ctxt;

  if (qp->qp_num == 0)
    ctxt = 0;
  else
    ctxt = dd->qp_map[(qp->qp_num >> dd->qos_shift) % dd->qp_map.size()];
  return dd->rcd[ctxt].get();
}

// tid_rdma.c hfi1_qp_priv_init(), flow-layer part.
void hfi1_qp_priv_init(hfi1_devdata* dd, rvt_qp* qp) {
  struct hfi1_qp_priv *qpriv = qp->priv;

  qpriv->rcd = qp_to_rcd(dd, qp);
  INIT_WORK(&qpriv->tid_rdma.trigger_work, tid_rdma_trigger_resume);
  INIT_WORK(&qpriv->s_iowait.iowork, _hfi1_do_send);  // iowait_init()
  qpriv->flow_state.psn = 0;
  qpriv->flow_state.index = RXE_NUM_TID_FLOWS;
  qpriv->flow_state.last_index = RXE_NUM_TID_FLOWS;
  qpriv->flow_state.generation = KERN_GENERATION_RESERVED;
  INIT_LIST_HEAD(&qpriv->tid_wait);
}

rvt_qp* hfi1_model_create_qp(hfi1_devdata* dd, u32 qpn) {
  rvt_qp* qp = new rvt_qp();
  qp->priv = new hfi1_qp_priv();
  qp->priv->owner = qp;
  qp->qp_num = qpn;
  spin_lock_init(&qp->r_lock);
  spin_lock_init(&qp->s_lock);
  qp->refcount.store(1, std::memory_order_relaxed);  // rvt_insert_qp's reference
  hfi1_qp_priv_init(dd, qp);
  // One send WQE whose READ request may hold up to
  // TID_RDMA_MAX_READ_SEGS_PER_REQ segments (the kernel's max_read).
  qp->priv->model_swqe = new hfi1_swqe_priv();
  hfi1_model_init_trdma_req(&qp->priv->model_swqe->tid_req, qp, TID_RDMA_MAX_READ_SEGS_PER_REQ);
  // One ack queue entry whose TID WRITE request may hold up to
  // TID_RDMA_MAX_WRITE_SEGS_PER_REQ segments (the kernel's max_write).
  qp->priv->model_ack = new hfi1_ack_priv();
  hfi1_model_init_trdma_req(&qp->priv->model_ack->tid_req, qp, TID_RDMA_MAX_WRITE_SEGS_PER_REQ);
  // The responder's ack queue: rvt_size_atomic() + 1 entries, each with its
  // own private part in the kernel; here all share model_ack, as the model
  // answers one TID WRITE request at a time (core/callers.h).
  qp->ibqp.device = dd;
  qp->s_ack_queue = new rvt_ack_entry[rvt_size_atomic(dd) + 1]();
  for (unsigned int i = 0; i <= rvt_size_atomic(dd); ++i) qp->s_ack_queue[i].priv = qp->priv->model_ack;
  return qp;
}

// rdmavt's _rvt_reset_qp() as rvt_reset_qp() calls it (r_lock, s_hlock,
// s_lock taken; s_hlock is not modelled), flow-layer part.
int hfi1_model_teardown_qp(rvt_qp* qp) {
  spin_lock_irq(&qp->r_lock);
  spin_lock(&qp->s_lock);
  /* Let drivers flush their waitlist */
  flush_qp_waiters(qp);
  qp->s_flags &= ~(RVT_S_TIMER | RVT_S_ANY_WAIT);
  spin_unlock(&qp->s_lock);
  spin_unlock_irq(&qp->r_lock);

  /* Stop the send queue and the retry timer */
  stop_send_queue(qp);
  // quiesce_qp (timers, SDMA/PIO drains, the tx list): nothing modelled.
  rvt_put_qp(qp);                                // rvt_remove_qp

  /* grab the lock b/c it was locked at call time */
  spin_lock_irq(&qp->r_lock);
  spin_lock(&qp->s_lock);
  // notify_qp_reset -> hfi1_qp_kern_exp_rcv_clear_all: "First, clear the
  // flow to help prevent any delayed packets from being delivered."
  if (qp->priv->flow_state.index != RXE_NUM_TID_FLOWS)
    hfi1_kern_clear_hw_flow(qp->priv->rcd, qp);
  spin_unlock(&qp->s_lock);
  spin_unlock_irq(&qp->r_lock);
  return qp->refcount.load(std::memory_order_acquire);
}

void hfi1_model_free_qp(rvt_qp* qp) {
  // hfi1_qp_priv_tid_free: the ack entries' flow arrays; the WQE's, as its
  // flush completion does (hfi1_trdma_send_complete -> trdma_clean_swqe).
  rvt_swqe wqe{qp->priv->model_swqe, {}, 0, 0};
  trdma_clean_swqe(qp, &wqe);
  hfi1_kern_exp_rcv_free_flows(&qp->priv->model_ack->tid_req);
  delete qp->priv->model_swqe;
  delete qp->priv->model_ack;
  delete[] qp->s_ack_queue;
  delete qp->priv;
  delete qp;
}

// rdmavt qp.c: ib_rvt_rnr_table, the RNR timer values in microseconds.
unsigned long rvt_rnr_tbl_to_usec(u32 index) {
  static const u32 ib_rvt_rnr_table[32] = {
      655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,   320,
      480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240, 15360,
      20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520};
  return ib_rvt_rnr_table[(index & IB_AETH_CREDIT_MASK)];
}

// hfi.h active_egress_rate().
u32 active_egress_rate(hfi1_devdata* ppd) {
  u16 link_speed = ppd->link_speed_active;
  u16 link_width = ppd->link_width_active;
  u32 egress_rate;

  if (link_speed == OPA_LINK_SPEED_25G)
    egress_rate = 25000;
  else /* assume OPA_LINK_SPEED_12_5G */
    egress_rate = 12500;

  switch (link_width) {
    case OPA_LINK_WIDTH_4X: egress_rate *= 4; break;
    case OPA_LINK_WIDTH_3X: egress_rate *= 3; break;
    case OPA_LINK_WIDTH_2X: egress_rate *= 2; break;
    default: break; /* assume IB_WIDTH_1X */
  }
  return egress_rate;
}

void tid_rdma_trigger_ack(rvt_qp* qp) {
  lockdep_assert_held(&qp->s_lock);
  qp->priv->s_flags |= RVT_S_ACK_PENDING;  // tid_rdma_schedule_ack
}

void rc_defered_ack(hfi1_ctxtdata* rcd, rvt_qp* qp) {
  (void)rcd;
  lockdep_assert_held(&qp->s_lock);
  qp->priv->model_rnr_nak_deferred = true;
}

void flush_qp_waiters(rvt_qp* qp) {
  lockdep_assert_held(&qp->s_lock);
  hfi1_tid_rdma_flush_wait(qp);
}

void stop_send_queue(rvt_qp* qp) {
  struct hfi1_qp_priv *priv = qp->priv;

  cancel_work_sync(&priv->s_iowait.iowork);
  if (cancel_work_sync(&priv->tid_rdma.trigger_work))
    rvt_put_qp(qp);
}

// qp.h hfi1_send_ok(); verbs_txreq_queued() is false in the model.
bool hfi1_send_ok(rvt_qp* qp) {
  return !(qp->s_flags & (RVT_S_BUSY | HFI1_S_ANY_WAIT_IO)) &&
         ((qp->s_flags & RVT_S_RESP_PENDING) || !(qp->s_flags & RVT_S_ANY_WAIT_SEND));
}

namespace {

// qp.c _hfi1_schedule_send(); the CPU (the SDMA engine's or the NUMA node's
// first) is not modelled.
bool _hfi1_schedule_send(rvt_qp* qp) {
  struct hfi1_qp_priv *priv = qp->priv;
  struct hfi1_devdata *dd = priv->rcd->dd;

  if (dd->flags & HFI1_SHUTDOWN)
    return true;
  return queue_work_on(0, dd->hfi1_wq, &priv->s_iowait.iowork);
}

}  // namespace

bool hfi1_schedule_send(rvt_qp* qp) {
  lockdep_assert_held(&qp->s_lock);
  if (hfi1_send_ok(qp)) {
    _hfi1_schedule_send(qp);
    return true;
  }
  return false;
}

void hfi1_do_send(rvt_qp* qp, bool /*in_thread*/) {
  struct hfi1_qp_priv *priv = qp->priv;
  unsigned long flags;

  spin_lock_irqsave(&qp->s_lock, flags);
  /* Return if we are already busy processing a work request. */
  if (!hfi1_send_ok(qp)) {
    spin_unlock_irqrestore(&qp->s_lock, flags);
    return;
  }
  qp->s_flags |= RVT_S_BUSY;
  priv->model_req.send_engine_runs++;
  if (priv->model_req.send_engine != nullptr)
    priv->model_req.send_engine(qp, priv->model_req.send_engine_arg);
  else
    hfi1_model_send_engine(qp, nullptr);
  qp->s_flags &= ~RVT_S_BUSY;  // the request builders clear it when they stop
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

void _hfi1_do_send(work_struct* work) {
  struct iowait_model *wait = container_of(work, struct iowait_model, iowork);
  struct hfi1_qp_priv *priv = container_of(wait, struct hfi1_qp_priv, s_iowait);

  hfi1_do_send(priv->owner, true);
}

void hfi1_model_send_engine(rvt_qp* qp, void* /*arg*/) {
  lockdep_assert_held(&qp->s_lock);
  struct hfi1_qp_priv *priv = qp->priv;

  if (!priv->model_req.wants_flow)
    return;
  if (hfi1_kern_setup_hw_flow(priv->rcd, qp) == 0) {
    priv->model_req.wants_flow = false;
    priv->model_req.flows_granted++;
  }
}
