// core/hfi1.h: the device and receive-context structures of the hfi1 model
// (hfi.h, tid_rdma.h, verbs.h), with only the fields the flow layer touches.
//
// Who protects what (docs/kernel.md, "Data structures" and "Locks"):
//   rcd->exp_lock   flow_mask, flows[], flow_queue, rarr_queue (and, in each
//                   hfi1_qp_priv of a QP of this context: tid_wait, tid_enqueue)
//   hardware        rcv_tid_flow_table[]: a modelled MMIO register file; always
//                   written under exp_lock by the flow code, read by anyone.
// Compile-time: every exp_lock-protected field of hfi1_ctxtdata is
// ABSL_GUARDED_BY(exp_lock), so touching one without the lock does not compile.
//
// Contexts are created by hfi1_create_ctxtdata() (as the kernel's, it inits
// exp_lock, the two queues and, for kernel contexts, the flow generations) and
// owned by their hfi1_devdata.
#ifndef FLOWCHECK_CORE_HFI1_H_
#define FLOWCHECK_CORE_HFI1_H_

#include <atomic>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "core/hfi1_constants.h"
#include "core/list.h"
#include "lockcheck/spinlock.h"

struct hfi1_devdata;
struct workqueue_struct;

// tid_rdma.h: per hardware flow (rcd->flows[]) and per QP (priv->flow_state).
struct tid_flow_state {
  u32 generation;  // per flow: the generation its next owner uses
  u32 psn;         // per QP: next free sequence in the current generation
  u8 index;        // per QP: hardware flow owned, RXE_NUM_TID_FLOWS = none
  u8 last_index;   // per QP: preferred flow for the next reservation
};

// tid_rdma.h: a FIFO of QPs (threaded through hfi1_qp_priv::tid_wait) and two
// free-running counters. enqueue/dequeue wrap; position_in_queue uses them.
struct tid_queue {
  list_head queue_head;
  u32 enqueue;  // ++ per QP queued; the value is the QP's tid_enqueue
  u32 dequeue;  // ++ per QP removed (charged to the queue the caller names)
};

// NOT KERNEL. get_random_u32() made per-context and seedable, so that a run
// replays exactly and quirk can be reached on purpose.
struct hfi1_model_random {
  u64 state = 0;                      // splitmix64 state; set by the seed
  u32 (*hook)(void* arg) = nullptr;   // if set, used instead (tests)
  void* hook_arg = nullptr;
};
u32 get_random_u32(hfi1_model_random* random);

// NOT KERNEL. Facts the model records under exp_lock for CheckInvariants
// (core/invariants.h) about *transitions*, which a snapshot cannot show.
// Recording never changes the kernel behaviour being modelled.
struct hfi1_flow_audit {
  // W4: grants of a flow while flow_queue was non-empty and the grantee was
  // not its head (hfi1_kern_setup_hw_flow); the kernel never does this.
  u64 grants = 0;
  u64 out_of_order_grants = 0;
  u32 last_out_of_order_qpn = 0;
  u32 last_out_of_order_head_qpn = 0;
  // F4: the last generation change by kern_clear_hw_flow of each flow.
  struct {
    u32 clears = 0;
    u32 old_gen = 0;
    u32 new_gen = 0;
  } clear[RXE_NUM_TID_FLOWS];
  // W5 / [R-1]: removals charged to one queue while the QP sat on the other.
  // Each moves (enqueue - dequeue - length) of the charged queue by -1 and of
  // the queue the QP really left by +1; these sums say by how much in total.
  u32 mischarged_removals = 0;
  int flow_queue_drift = 0;
  int rarr_queue_drift = 0;
};

// exp_rcv.h: a group of RcvArray entries, base..base+size-1; bit i of map
// set: entry base+i is in use. On exactly one of the context's three lists
// (core/exp_rcv.h), under exp_lock.
struct tid_group {
  list_head list;
  u32 base;
  u8 size;
  u8 used;
  u8 map;
};

// hfi.h: a list of tid_groups and its length.
struct exp_tid_set {
  list_head list;
  u32 count;
};

// NOT KERNEL. RcvArray facts the model records for CheckInvariants (G4):
// hfi1_put_tid programming an entry that was already valid.
struct hfi1_rcvarray_audit {
  std::atomic<u64> double_programs{0};
  // RcvArray entries still held by set-up segments whose request's flow
  // array was freed (hfi1_kern_exp_rcv_free_flows on a non-empty ring,
  // ): nothing can clear them any more. Recorded by core/callers.h's
  // caller_read_req_flush_complete; G5 counts them as a divergence.
  std::atomic<u32> orphaned_entries{0};
  std::atomic<u32> last_double_programmed{0};
};

// hfi.h: struct hfi1_ctxtdata, a receive context.
struct hfi1_ctxtdata {
  hfi1_devdata* dd = nullptr;
  hfi1_devdata* ppd = nullptr;  // rcd->ppd: the model's device is its one port
  u16 ctxt = 0;

  spinlock_t exp_lock;
  // Bit i set: hardware flow i is reserved. Only bits 0..31 are ever used.
  unsigned long flow_mask ABSL_GUARDED_BY(exp_lock) = 0;
  tid_flow_state flows[RXE_NUM_TID_FLOWS] ABSL_GUARDED_BY(exp_lock) = {};
  tid_queue flow_queue ABSL_GUARDED_BY(exp_lock) = {};  // QPs waiting for a flow
  tid_queue rarr_queue ABSL_GUARDED_BY(exp_lock) = {};  // QPs waiting for TIDs

  // Modelled hardware: RcvTIDFlowTable[flow] (docs/kernel.md, "The RcvTIDFlowTable register"). MMIO, so not a
  // data race in the kernel's sense: relaxed atomics. Written through
  // write_uctxt_csr(), read through read_uctxt_csr() or directly by tests.
  std::atomic<u64> rcv_tid_flow_table[RXE_NUM_TID_FLOWS] = {};

  // The RcvArray groups (core/exp_rcv.h): every group of `groups` on
  // exactly one list, by its used count (0, between, size).
  exp_tid_set tid_group_list ABSL_GUARDED_BY(exp_lock) = {};  // none used
  exp_tid_set tid_used_list ABSL_GUARDED_BY(exp_lock) = {};   // partly used
  exp_tid_set tid_full_list ABSL_GUARDED_BY(exp_lock) = {};   // all used
  std::unique_ptr<tid_group[]> groups;  // rcv_array_groups of them; set at creation
  u16 rcv_array_groups = 0;  // the model: the expected groups (kernel: eager too)
  u16 expected_count = 0;    // expected RcvArray entries, from expected_base
  int numa_id = 0;           // the node its memory comes from (kmalloc_node); unmodelled
  u16 expected_base = 0;     // device-wide index of the first
  // Modelled hardware: the context's expected RcvArray entries (MMIO:
  // relaxed atomics), written by hfi1_put_tid. (pa | 1) valid, 0 invalid.
  std::atomic<u64> rcv_array[kModelExpectedCount] = {};
  hfi1_rcvarray_audit rcvarray_audit;                    // NOT KERNEL

  hfi1_model_random random;                              // NOT KERNEL
  hfi1_flow_audit audit ABSL_GUARDED_BY(exp_lock);       // NOT KERNEL
};

// verbs.h: struct hfi1_ibdev (dd->verbs_dev). n_tidwait is a statistic the
// kernel increments under the exp_lock of whichever context queues a QP, i.e.
// without one common lock: two contexts of one device driven concurrently race
// on it in the kernel too (benign), and TSan will say so in the model.
struct hfi1_ibdev {
  u64 n_tidwait = 0;
};

// The hfi2 driver's per-chip parameters (dd->params), reduced to the one
// the flow layer reads: the flow table's CSR offset. hfi1 uses the constant
// RCV_TID_FLOW_TABLE; the model's chip has that layout, so hfi2's text
// (upstream mode, profile hfi2) addresses the same registers.
struct hfi1_chip_params {
  u32 rcv_tid_flow_table_reg;
};
inline constexpr hfi1_chip_params kModelChipParams = {RCV_TID_FLOW_TABLE};

// hfi.h: struct hfi1_devdata, trimmed. Owns its contexts.
struct hfi1_devdata {
  hfi1_ibdev verbs_dev;
  u32 flags = 0;  // HFI1_SHUTDOWN (core/qp.h) stops hfi1_schedule_send queueing
  const hfi1_chip_params* params = &kModelChipParams;  // hfi2: dd->params
  std::vector<std::unique_ptr<hfi1_ctxtdata>> rcd;  // dd->rcd[ctxt]
  u16 n_krcv_queues = 0;          // kernel receive contexts (ctxt 0 included)
  u16 first_dyn_alloc_ctxt = 0;   // contexts below it get generations at init
  u8 qos_shift = 0;
  std::vector<u8> qp_map;         // hfi1_get_qp_map(): (qpn >> qos_shift) -> ctxt
  workqueue_struct* hfi1_wq = nullptr;  // ppd->hfi1_wq: runs trigger_work
  // The port's link (ppd->link_*_active), for active_egress_rate: 4 lanes of 25G.
  u16 link_speed_active = OPA_LINK_SPEED_25G;
  u16 link_width_active = OPA_LINK_WIDTH_4X;
  struct {
    u16 group_size = kModelRcvGroupSize;  // RcvArray entries per tid_group
  } rcv_entries;
};

// Model of the device probe: `n_krcv_queues` kernel contexts (>= 1) created
// with hfi1_create_ctxtdata, QP map filled round-robin over contexts
// 1..n-1 (context 0 if there is only one), deferred work on `wq`.
// `seed` seeds each context's get_random_u32 (context c uses seed + c).
std::unique_ptr<hfi1_devdata> hfi1_model_alloc_devdata(int n_krcv_queues,
                                                       workqueue_struct* wq,
                                                       u64 seed);

// init.c: creates context `ctxt` of `dd` (stored in dd->rcd[ctxt]): exp_lock
// (one lock class for every context), empty queues, and for kernel contexts
// (ctxt < first_dyn_alloc_ctxt) hfi1_kern_init_ctxt_generations().
hfi1_ctxtdata* hfi1_create_ctxtdata(hfi1_devdata* dd, u16 ctxt, u64 seed);

// The device's CSR accessors, reduced to the flow table. `offset` must be
// RCV_TID_FLOW_TABLE + 8 * flow_idx with flow_idx < RXE_NUM_TID_FLOWS;
// anything else is a model bug and aborts.
void write_uctxt_csr(hfi1_devdata* dd, u16 ctxt, u32 offset, u64 value);
u64 read_uctxt_csr(const hfi1_devdata* dd, u16 ctxt, u32 offset);

#endif  // FLOWCHECK_CORE_HFI1_H_
