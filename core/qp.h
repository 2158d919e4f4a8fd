// core/qp.h: the QP as the flow layer sees it (rdmavt's struct rvt_qp plus
// hfi1's struct hfi1_qp_priv), its reference count, and the send engine that a
// woken QP runs.
//
// Who protects what (docs/kernel.md, "Data structures" and "Locks"):
//   qp->s_lock        s_flags (compile-time: ABSL_GUARDED_BY), priv->resync,
//                     priv->model_req; priv->flow_state is read under s_lock
//                     and written under s_lock AND the context's exp_lock
//   rcd->exp_lock     priv->tid_wait, priv->tid_enqueue (rcd = priv->rcd)
//   atomic            refcount, the work items' PENDING bits
// The priv fields are documented rather than annotated: the analysis cannot
// tie `priv->owner->s_lock` or `priv->rcd->exp_lock` to the `qp`/`rcd`
// arguments the kernel functions receive. Run-time lockdep asserts and TSan
// cover them instead.
//
// Lifetime: hfi1_model_create_qp() returns a QP holding one reference (the QP
// table's, as rvt_insert_qp takes). hfi1_model_teardown_qp() does what QP
// destroy does to the flow layer and drops that reference; the QP may be freed
// (hfi1_model_free_qp) once the count it returns is 0.
#ifndef FLOWCHECK_CORE_QP_H_
#define FLOWCHECK_CORE_QP_H_

#include <atomic>
#include <type_traits>

#include "absl/base/thread_annotations.h"
#include "core/hfi1.h"
#include "core/hfi1_constants.h"
#include "core/list.h"
#include "core/workqueue.h"
#include "lockcheck/spinlock.h"

struct hfi1_qp_priv;
struct hfi1_swqe_priv;
struct hfi1_ack_priv;
struct page;  // opaque, as in the kernel
struct rvt_ack_entry;

// ib_verbs.h: struct ib_qp, reduced to the device rdmavt finds through it
// (ib_to_rvt(qp->ibqp.device)); the model's device stands for rdi.
struct ib_qp {
  hfi1_devdata* device = nullptr;
};

// rdmavt's rvt_sge_state, as the model's segments give it: the pagesets
// tid_rdma_find_phys_blocks_4k/8k would make of the segment's pages (those
// helpers run verbatim in upstream/pages). `psets` entries, each 1..32 pages.
struct rvt_sge_state {
  const u8* pset_pages;
  u8 psets;
};

// include/rdma/rdmavt_qp.h: struct rvt_qp, trimmed.
struct rvt_qp {
  spinlock_t r_lock;
  spinlock_t s_lock;
  u32 s_flags ABSL_GUARDED_BY(s_lock) = 0;  // HFI1_S_WAIT_TID_SPACE among others
  std::atomic<int> refcount{0};             // atomic_t: can go negative on a bug
  u32 qp_num = 0;                           // qp->ibqp.qp_num
  u32 pmtu = 4096;                          // path MTU in bytes: 4096 or 8192
  ib_qp ibqp;                               // qp->ibqp.device
  // The responder's side (rdmavt), as hfi1_tid_write_alloc_resources and the
  // TID WRITE request's arrival use them; s_lock. The ack queue has
  // rvt_size_atomic() + 1 entries (core/exp_rcv.h; owned by the QP).
  rvt_ack_entry* s_ack_queue = nullptr;
  u8 r_head_ack_queue = 0;  // the entry the next request goes to
  u8 r_nak_state = 0;       // a NAK (RNR: IB_RNR_NAK | timer) is scheduled
  u8 s_nak_state = 0;       // the send side's copy of it
  u32 r_psn = 0;            // the next PSN expected
  u32 r_ack_psn = 0;
  u32 s_ack_psn = 0;
  // The requester's side, as the TID READ branch of hfi1_make_rc_req and
  // hfi1_build_tid_rdma_read_req use it; s_lock. s_sge: the pages of the
  // segment being sent (the model's layout; the kernel's walks the WQE).
  rvt_sge_state s_sge = {};
  u32 s_psn = 0;                 // the next PSN to send
  u8 s_state = 0;                // the last opcode sent
  u8 s_num_rd_atomic = 0;        // READ segments (and atomics) in flight
  u8 s_max_rd_atomic = HFI1_MAX_RDMA_ATOMIC;  // the negotiated limit
  // void *priv in the kernel; typed here (the model has one driver).
  hfi1_qp_priv* priv = nullptr;
};

// NOT KERNEL. The send engine a QP runs when its send work executes
// (hfi1_do_send, with s_lock held). The default, hfi1_model_send_engine,
// stands for the request layer: it retries hfi1_kern_setup_hw_flow while the
// QP's modelled request still wants a flow. Tests may install their own.
using hfi1_model_send_engine_fn = void (*)(rvt_qp* qp, void* arg);

// NOT KERNEL. What the request layer (READ requester / WRITE responder) wants
// from the flow layer, reduced to one bit, plus counters for tests.
struct hfi1_model_request {
  bool wants_flow = false;       // the send engine calls hfi1_kern_setup_hw_flow
  u32 send_engine_runs = 0;      // times hfi1_do_send ran the engine
  u32 flows_granted = 0;         // successful setups by the engine
  hfi1_model_send_engine_fn send_engine = nullptr;  // nullptr: the default
  void* send_engine_arg = nullptr;
};

// tid_rdma.h: struct tid_rdma_params, trimmed to what the WRITE responder
// reads of the local side's (max_write: segments it allocates ahead).
struct tid_rdma_params {
  u32 max_len = TID_RDMA_MAX_SEGMENT_SIZE;
  u8 max_write = TID_RDMA_MAX_WRITE_SEGS_PER_REQ;
};

// tid_rdma.h: struct tid_rdma_qp_params, trimmed.
struct tid_rdma_qp_params {
  work_struct trigger_work;  // tid_rdma_trigger_resume
  tid_rdma_params local;
};

// iowait.h: the send side of the QP's iowait, reduced to its work item.
struct iowait_model {
  work_struct iowork;  // _hfi1_do_send
};

// verbs.h: struct hfi1_qp_priv, trimmed to the flow layer.
struct hfi1_qp_priv {
  rvt_qp* owner = nullptr;
  hfi1_ctxtdata* rcd = nullptr;     // qp_to_rcd() at init; never changes
  tid_flow_state flow_state = {};   // see the locking table above
  list_head tid_wait = {};          // ONE node for flow_queue and rarr_queue
  u32 tid_enqueue = 0;              // ++queue->enqueue when queued
  tid_rdma_qp_params tid_rdma;
  iowait_model s_iowait;
  bool resync = false;              // a RESYNC awaits its ACK (s_lock)
  hfi1_model_request model_req;     // NOT KERNEL (s_lock)
  // NOT KERNEL, model audit (exp_lock): the generation the last RESYNC saved
  // while the QP had no flow, so F6 can tell it from a stray value.
  u32 model_resync_saved_gen = KERN_GENERATION_RESERVED;
  // NOT KERNEL: the QP's one send WQE's private part (the kernel has one per
  // WQE, wqe->priv): its tid_req is the READ request whose segments take
  // TIDs (core/exp_rcv.h). Owned by the QP; s_lock.
  hfi1_swqe_priv* model_swqe = nullptr;
  // NOT KERNEL: the QP's one ack queue entry's private part (the kernel has
  // one per entry, e->priv): its tid_req is the TID WRITE request the QP
  // answers as responder, whose segments take TIDs too. Owned; s_lock.
  hfi1_ack_priv* model_ack = nullptr;
  // The WRITE responder's allocator state (hfi1_tid_write_alloc_resources),
  // s_lock: segments allocated whose data has not all arrived, and whether
  // the flow's PSN space ran out (the next generation waits for them).
  u32 alloc_w_segs = 0;
  bool sync_pt = false;
  // Its RNR NAK and ack queue position, also s_lock:
  u8 rnr_nak_state = TID_RNR_NAK_INIT;  // TID_RNR_NAK_SEND: allocation stops
  u16 r_tid_head = 0;   // the ack entry after the last TID WRITE request
  u16 r_tid_alloc = 0;  // the ack entry being allocated for
  u32 s_flags = 0;      // hfi1's own flags (HFI1_R_TID_SW_PSN, RVT_S_ACK_PENDING)
  // The READ requester's counters (s_lock): segments sent whose response
  // has not arrived, TID READs posted and completed. The kernel never resets
  // the last two (a READ flushed by a QP error is never counted complete).
  u32 pending_tid_r_segs = 0;
  u32 tid_r_reqs = 0;
  u32 tid_r_comp = 0;
  // NOT KERNEL (s_lock): the QP's one send WQE is a posted TID READ not yet
  // completed; false: the next READ segment op posts one, of
  // model_read_segs segments (the size of the READs the model's application
  // posts; tests raise it to reach a sync point).
  bool model_read_posted = false;
  u32 model_read_segs = kModelReadSegs;
  // NOT KERNEL (s_lock): an RNR NAK was deferred (rc_defered_ack) and not yet
  // sent; the kernel queues the QP on rcd->qp_wait_list for it.
  bool model_rnr_nak_deferred = false;
  // NOT KERNEL, model audit (s_lock): times one role freed the QP's shared
  // flow while the other role had segments live on it (the READ completion
  // under WRITE segments, the WRITE allocator's idle clear under READ
  // segments): R7 then reports as an upstream divergence.
  u32 model_cross_role_clears = 0;
  page** pages = nullptr;  // the kernel's page array for kern_get_phys_blocks; unused
};
// list_first_entry()/container_of() on tid_wait and the work items.
static_assert(std::is_standard_layout<hfi1_qp_priv>::value,
              "container_of needs a standard-layout hfi1_qp_priv");

// rdmavt_qp.h: take / drop a QP reference. rvt_put_qp(NULL) is a no-op.
void rvt_get_qp(rvt_qp* qp);
void rvt_put_qp(rvt_qp* qp);

// tid_rdma.c: the receive context serving `qp` (qpn 0 -> context 0, else
// dd->qp_map[(qpn >> qos_shift) % size]). Takes dd instead of rdi.
hfi1_ctxtdata* qp_to_rcd(hfi1_devdata* dd, rvt_qp* qp);

// tid_rdma.c hfi1_qp_priv_init(), flow-layer part: rcd, the two work items,
// flow_state = {index 32, last_index 32, generation RESERVED, psn 0}, an
// unlinked tid_wait.
void hfi1_qp_priv_init(hfi1_devdata* dd, rvt_qp* qp);

// Model of QP create: allocates the QP and its priv, initialises r_lock and
// s_lock (one lock class each for all QPs), refcount 1, hfi1_qp_priv_init.
rvt_qp* hfi1_model_create_qp(hfi1_devdata* dd, u32 qpn);

// Model of QP destroy, flow-layer part, from a thread holding no lock, in
// rdmavt's _rvt_reset_qp order: under r_lock and s_lock, flush_qp_waiters and
// clear RVT_S_TIMER | RVT_S_ANY_WAIT; unlock; stop_send_queue; (quiesce_qp:
// nothing modelled); drop the table reference (rvt_remove_qp); under r_lock
// and s_lock again, notify_qp_reset's hfi1_kern_clear_hw_flow if the QP owns
// a flow. Returns the references still held afterwards: 0 when nothing leaked.
int hfi1_model_teardown_qp(rvt_qp* qp);
// Frees a QP. Call only when no one can reach it any more.
void hfi1_model_free_qp(rvt_qp* qp);

// qp.c: flush_qp_waiters(), TID part: hfi1_tid_rdma_flush_wait.
void flush_qp_waiters(rvt_qp* qp) __must_hold(&qp->s_lock);
// qp.c: stop_send_queue(): cancel the send work and trigger_work; a pending
// trigger_work owned a QP reference, which is dropped. No lock held.
void stop_send_queue(rvt_qp* qp);

// rdmavt_qp.h and hfi1's qp.h: the s_flags bits hfi1_send_ok() reads. The
// flow layer sets none of them (the request layer, the SDMA/PIO engines and
// rdmavt do); a test or harness sets them, under s_lock, to hold a QP's sends.
inline constexpr u32 RVT_S_BUSY = 0x0002;
inline constexpr u32 RVT_S_TIMER = 0x0004;
inline constexpr u32 RVT_S_RESP_PENDING = 0x0008;
inline constexpr u32 RVT_S_ACK_PENDING = 0x0010;
inline constexpr u32 RVT_S_WAIT_FENCE = 0x0020;
inline constexpr u32 RVT_S_WAIT_RDMAR = 0x0040;
inline constexpr u32 RVT_S_WAIT_RNR = 0x0080;
inline constexpr u32 RVT_S_WAIT_SSN_CREDIT = 0x0100;
inline constexpr u32 RVT_S_WAIT_DMA = 0x0200;
inline constexpr u32 RVT_S_WAIT_PIO = 0x0400;
inline constexpr u32 RVT_S_WAIT_TX = 0x0800;
inline constexpr u32 RVT_S_WAIT_DMA_DESC = 0x1000;
inline constexpr u32 RVT_S_WAIT_KMEM = 0x2000;
inline constexpr u32 RVT_S_WAIT_PSN = 0x4000;
inline constexpr u32 RVT_S_WAIT_ACK = 0x8000;
inline constexpr u32 RVT_S_ANY_WAIT_IO =
    RVT_S_WAIT_PIO | RVT_S_WAIT_TX | RVT_S_WAIT_DMA_DESC | RVT_S_WAIT_KMEM;
inline constexpr u32 RVT_S_ANY_WAIT_SEND = RVT_S_WAIT_FENCE | RVT_S_WAIT_RDMAR |
                                           RVT_S_WAIT_RNR | RVT_S_WAIT_SSN_CREDIT |
                                           RVT_S_WAIT_DMA | RVT_S_WAIT_PSN | RVT_S_WAIT_ACK;
inline constexpr u32 RVT_S_ANY_WAIT = RVT_S_ANY_WAIT_IO | RVT_S_ANY_WAIT_SEND;
inline constexpr u32 HFI1_S_WAIT_PIO_DRAIN = 0x20000000;
inline constexpr u32 HFI1_S_ANY_WAIT_IO = RVT_S_ANY_WAIT_IO | HFI1_S_WAIT_PIO_DRAIN;
// hfi.h: dd->flags bit set when the device shuts down.
inline constexpr u32 HFI1_SHUTDOWN = 0x100;

// qp.h hfi1_send_ok(): the QP may send: not RVT_S_BUSY, no HFI1_S_ANY_WAIT_IO,
// and a response pending or no RVT_S_ANY_WAIT_SEND. (The kernel's third way,
// a queued verbs txreq, does not exist in the model.) Needs s_lock.
bool hfi1_send_ok(rvt_qp* qp) __must_hold(&qp->s_lock);

// qp.c: hfi1_schedule_send(). If hfi1_send_ok(): _hfi1_schedule_send()
// (nothing while the device shuts down, HFI1_SHUTDOWN in dd->flags; else
// queues the QP's send work, a no-op if pending) and returns true; otherwise
// returns false and queues nothing. (The kernel then marks the iowait
// IOWAIT_PENDING_IB if an I/O wait is set; the model has no I/O waits that
// would resume it.) Needs s_lock.
bool hfi1_schedule_send(rvt_qp* qp) __must_hold(&qp->s_lock);
// ruc.c: hfi1_do_send(): takes s_lock (irqsave); returns at once if
// !hfi1_send_ok() ("already busy processing a work request"); else sets
// RVT_S_BUSY, runs the send engine, clears RVT_S_BUSY. Called with no lock
// held (from the send work or tid_rdma_trigger_resume).
void hfi1_do_send(rvt_qp* qp, bool in_thread);
// ruc.c: _hfi1_do_send(), the send work's function.
void _hfi1_do_send(work_struct* work);

// NOT KERNEL. The default send engine (see hfi1_model_request).
void hfi1_model_send_engine(rvt_qp* qp, void* arg) __must_hold(&qp->s_lock);

#endif  // FLOWCHECK_CORE_QP_H_
