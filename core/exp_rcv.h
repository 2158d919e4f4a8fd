// core/exp_rcv.h: the RcvArray (TID) half of a TID RDMA segment's receive
// resources, as tid_rdma.c and exp_rcv.[ch] build it: a context's RcvArray
// entries in groups of 8 (struct tid_group) on three lists by how many of
// their entries are in use, and per request a ring of flows, each holding the
// TID entries one segment was given.
//
// Who protects what (docs/kernel.md):
//   rcd->exp_lock   the three lists and their counts, every group's used and
//                   map, rcd->rarr_queue
//   qp->s_lock      the request (setup_head, clear_tail, flows[]): only the
//                   QP's send engine / response path touches it
//   hardware        the RcvArray entries (modelled MMIO, relaxed atomics),
//                   written under exp_lock by hfi1_put_tid
//
// Kernel behaviour kept as is (docs/kernel-tids.md, "RcvArray (TID)
// allocation"):
//   - kern_alloc_tids only plans, changing no group: whole complete groups
//     first, then partly used ones, then the rest from one more complete
//     group; -EAGAIN if that is not enough.
//   - kern_program_rcv_group moves a group between lists *before* counting
//     the entry it programs (used == size - 1: used -> full; used == 0:
//     free -> used), and kern_unprogram_rcv_group *after* uncounting it.
//   - a pageset of count 0 (a filler) takes an entry programmed PT_INVALID:
//     its map bit is set although the hardware entry is invalid.
#ifndef FLOWCHECK_CORE_EXP_RCV_H_
#define FLOWCHECK_CORE_EXP_RCV_H_

#include <atomic>

#include "core/hfi1.h"
#include "core/hfi1_constants.h"
#include "core/kernel_idioms.h"
#include "core/list.h"
#include "core/qp.h"
#include "lockcheck/spinlock.h"

// struct tid_group and struct exp_tid_set are in core/hfi1.h (the context
// embeds them).

// exp_rcv.h: tid_group_add_tail / tid_group_remove / tid_group_move.
void tid_group_add_tail(tid_group* grp, exp_tid_set* set);
void tid_group_remove(tid_group* grp, exp_tid_set* set);
void tid_group_move(tid_group* group, exp_tid_set* s1, exp_tid_set* s2);

// exp_rcv.h: the TID entry a segment's TID array carries (EXP_TID_SET).
inline constexpr u32 EXP_TID_TIDLEN_MASK = 0x7FF, EXP_TID_TIDLEN_SHIFT = 0;
inline constexpr u32 EXP_TID_TIDCTRL_MASK = 0x3, EXP_TID_TIDCTRL_SHIFT = 20;
inline constexpr u32 EXP_TID_TIDIDX_MASK = 0x3FF, EXP_TID_TIDIDX_SHIFT = 22;
#define EXP_TID_SET(field, value) \
  (((value) & EXP_TID_TID##field##_MASK) << EXP_TID_TID##field##_SHIFT)

// hfi.h: RcvArray entry types hfi1_put_tid writes.
inline constexpr u32 PT_EXPECTED = 0, PT_INVALID = 3;

// tid_rdma.h: one set of physically contiguous pages of a segment; count 0:
// a filler. The model keeps no bitfields (count <= 64 here).
struct tid_rdma_pageset {
  u64 addr;
  u8 idx;
  u8 count;
  bool mapped;
};

// tid_rdma.h: which group a segment's entries come from, the group's map
// when they were planned, and how many.
struct kern_tid_node {
  tid_group* grp;
  u8 map;
  u8 cnt;
};

// tid_rdma.h struct flow_state, the fields setup writes.
struct flow_state {
  u32 generation;
  u32 spsn;
  u32 lpsn;
  u32 r_next_psn;
  // The READ requester's segment in the verbs PSN space.
  u32 ib_spsn;
  u32 ib_lpsn;
};

struct tid_rdma_request;

// rvt_sge_state: core/qp.h (the QP's s_sge is one).

// tid_rdma.h: one segment's resources.
struct tid_rdma_flow {
  flow_state flow_state;
  tid_rdma_request* req;
  u32 sent;  // bytes of the segment requested (the READ packet's)
  u8 tnode_cnt;
  u8 tidcnt;
  u8 tid_idx;
  u8 idx;
  u8 npagesets;
  u8 npkts;
  u8 pkt;
  kern_tid_node tnode[TID_RDMA_MAX_PAGES];
  tid_rdma_pageset pagesets[TID_RDMA_MAX_PAGES];
  u32 tid_entry[TID_RDMA_MAX_PAGES];
  u32 resync_npkts;  // the kernel's RESYNC bookkeeping; the model only sets it
};

// tid_rdma.h: a request's ring of flows: setup_head is the next to set up,
// clear_tail the oldest set up; at most n_flows in use. `flows` is MAX_FLOWS
// entries from hfi1_kern_exp_rcv_alloc_flows (an ack entry's at QP creation,
// a WQE's when its TID READ is posted), nullptr after
// hfi1_kern_exp_rcv_free_flows (QP destruction; a WQE's at its completion,
// __trdma_clean_swqe).
// The fields after `flows`: the ring's acknowledged tail, the segment
// length, the request's length in segments, how many have TIDs (alloc_seg,
// the WRITE responder's) and how many completed (comp_seg: a READ
// segment's response, a WRITE segment's data), where the WRITE request's
// pages are (ss: the model's layout, the same for every segment); then the
// READ requester's (hfi1_build_tid_rdma_read_req): the segment being sent
// (flow_idx, cur_seg), its verbs PSN, the responses due (ack_pending), the
// request's state (TID_REQUEST_*).
struct tid_rdma_request {
  rvt_qp* qp;
  hfi1_ctxtdata* rcd;
  u16 setup_head;
  u16 clear_tail;
  u16 flow_idx;
  u16 n_flows;
  tid_rdma_flow* flows;
  u16 acked_tail;
  u32 seg_len;
  u32 total_len;
  u32 total_segs;
  u32 alloc_seg;
  u32 comp_seg;
  u32 ack_seg;
  rvt_sge_state ss;
  u32 s_next_psn;
  u32 cur_seg;
  u32 isge;
  u32 ack_pending;
  u8 state;
};

// verbs.h: a send WQE's private part, reduced to its TID RDMA request
// (wqe_to_tid_req). The model's QP has one (hfi1_qp_priv::model_swqe).
struct hfi1_swqe_priv {
  tid_rdma_request tid_req;
};

// rdmavt's send WQE, reduced to its private part (typed here: C's void *
// would not convert in C++) and what the READ requester's trace point
// reads (opcode, first and last PSN).
struct ib_send_wr_model {
  u32 opcode;
};
struct rvt_swqe {
  hfi1_swqe_priv* priv;
  ib_send_wr_model wr;
  u32 psn;
  u32 lpsn;
};
// ib_hdrs.h: a packet's headers. The model builds no packet: only a
// pointer to one is passed (hfi1_build_tid_rdma_read_packet ignores it).
struct ib_other_headers;

// verbs.h: the TID RDMA request of a send WQE.
inline tid_rdma_request* wqe_to_tid_req(rvt_swqe* wqe) { return &wqe->priv->tid_req; }
// verbs.h: an ack queue entry's private part, reduced to its TID RDMA request
// (ack_to_tid_req): the WRITE responder's. The model's QP has one
// (hfi1_qp_priv::model_ack).
struct hfi1_ack_priv {
  tid_rdma_request tid_req;
  // NOT KERNEL: the request's page layout, which tid_req.ss points at (the
  // kernel's ss walks the request's memory region).
  u8 model_pset_pages[TID_RDMA_MAX_PAGES];
};

// rdmavt_qp.h: struct rvt_ack_entry, trimmed to what the WRITE responder's
// allocator reads (the kernel's priv is void *; typed here).
struct rvt_ack_entry {
  u32 psn;
  u32 lpsn;
  u8 opcode;
  hfi1_ack_priv* priv;
};

// verbs.h: the TID RDMA request of an ack queue entry.
inline tid_rdma_request* ack_to_tid_req(rvt_ack_entry* e) { return &e->priv->tid_req; }


// ---- tid_rdma.c, mirrored in core/tid_rdma_rcvarray.cc (the kernel's text
// in upstream mode; static there, renamed and reached through
// upstream/trampolines.h). Each helper runs under rcd->exp_lock.

// A pageset's buffer order for hfi1_put_tid: ilog2(count) + 1.
u8 trdma_pset_order(tid_rdma_pageset* s);
// Appends a node (cnt entries of grp, its map as it is now) to the flow's
// plan. `s` labels the trace point.
void kern_add_tid_node(tid_rdma_flow* flow, hfi1_ctxtdata* rcd, char* s, tid_group* grp, u8 cnt);
// Plans the flow's npagesets entries (see the header comment): 0 or -EAGAIN;
// changes no group.
int kern_alloc_tids(tid_rdma_flow* flow);
// Programs node grp_num's entries from pagesets[*pset_idx...], moving the
// group between the lists; computes the TID entries and npkts.
void kern_program_rcv_group(tid_rdma_flow* flow, int grp_num, u32* pset_idx);
// Frees node grp_num's entries, moving the group between the lists.
void kern_unprogram_rcv_group(tid_rdma_flow* flow, int grp_num);
// Every node of the flow's plan, in order.
void kern_program_rcvarray(tid_rdma_flow* flow);
// Forgets the flow's pagesets (the next setup computes them again).
void hfi1_tid_rdma_reset_flow(tid_rdma_flow* flow);

// ---- The WRITE responder's allocator (tid_rdma.c, mirrored in
// core/tid_rdma_write.cc; the kernel's text in upstream mode).

// The RNR timeout's heuristic for a QP at position N of flow_queue: (N + 1)
// times the segments between two sync points.
u32 hfi1_compute_tid_rdma_flow_wt(rvt_qp* qp);
// The index of the next highest RNR timer value (rdmavt's table) to
// `to_seg` segments' time on the port's link.
u32 hfi1_compute_tid_rnr_timeout(rvt_qp* qp, u32 to_seg);
// Allocates a flow and TIDs for the segments of the QP's TID WRITE requests
// in its ack queue, [request r_tid_alloc, segment alloc_seg] onwards, up to
// local.max_write segments pending (alloc_w_segs); stops at a sync point
// (the flow's PSN space used up: a new generation once all data arrived),
// a full ring, no flow (-EAGAIN: on flow_queue) or no TIDs (-EAGAIN: on
// rarr_queue); with no request left and no data pending it frees the flow.
// From the receive path (intr_ctx: the caller holds r_lock too) an -EAGAIN
// schedules an RNR NAK (rnr_nak_state TID_RNR_NAK_SEND), after which it
// allocates nothing until the request is resent. Caller holds s_lock.
void hfi1_tid_write_alloc_resources(rvt_qp* qp, bool intr_ctx) __must_hold(&qp->s_lock);

// ---- The READ requester (tid_rdma.c, mirrored in core/tid_rdma_read.cc;
// the kernel's text in upstream mode).
// Builds the TID READ request of the WQE's next segment, `*len` bytes: at a
// sync point (the flow's PSN space used up) it waits until no segment's
// response is due (returns 0), then frees the flow for a new generation;
// for a new segment it sets up the flow (0 returned: on flow_queue) and the
// segment's TIDs from qp->s_sge (0 returned, req->state QUEUED: on
// rarr_queue, or the ring full); then the packet. Returns the header's
// dwords, or 0 if nothing was sent. Caller holds s_lock.
u32 hfi1_build_tid_rdma_read_req(rvt_qp* qp, rvt_swqe* wqe, ib_other_headers* ohdr, u32* bth1,
                                 u32* bth2, u32* len) __must_hold(&qp->s_lock);
// What it calls below it, the model's (core/exp_rcv.cc).
// tid_rdma.c: the packet of the segment at req->flow_idx. NOT KERNEL: the
// model writes no header (ohdr and bth1 are not touched); it keeps the
// kernel's resource steps: bth2's PSN, the segment marked sent (flow->sent,
// cur_seg, ack_pending, flow_idx, pending_tid_r_segs, s_num_rd_atomic,
// s_state) and *len the payload's length. Returns the request's dwords (9).
u32 hfi1_build_tid_rdma_read_packet(rvt_swqe* wqe, ib_other_headers* ohdr, u32* bth1, u32* bth2,
                                    u32* len);
// rc.h: points the sge at the WQE's byte for `psn` (a resent request's
// first new segment). NOT KERNEL: the model's s_sge is the next segment's
// layout already; nothing to move (the model never resends a READ).
// Returns 0.
u32 restart_sge(rvt_sge_state* ss, rvt_swqe* wqe, u32 psn, u32 pmtu);
// What it calls of the rest of the driver, the model's (core/qp.cc).
// rdmavt: the device of a QP's ib device; its ack queue holds
// rvt_size_atomic() + 1 entries. NOT KERNEL size: the model answers one TID
// WRITE request at a time, so two entries suffice (a request and the next).
inline constexpr unsigned int kModelMaxRdmaAtomic = 1;
inline hfi1_devdata* ib_to_rvt(hfi1_devdata* device) { return device; }
inline unsigned int rvt_size_atomic(hfi1_devdata* rdi) {
  (void)rdi;
  return kModelMaxRdmaAtomic;
}
// rdmavt_qp.h: packets of `len` bytes at the QP's MTU.
inline u32 rvt_div_round_up_mtu(rvt_qp* qp, u32 len) { return (len + qp->pmtu - 1) / qp->pmtu; }
// rdmavt: the RNR timer table, in microseconds.
unsigned long rvt_rnr_tbl_to_usec(u32 index);
// hfi.h: the port's egress rate in Mb/s (speed times width).
u32 active_egress_rate(hfi1_devdata* ppd);
// tid_rdma.c: schedules a TID ACK (the overtaken ring); the model sets
// RVT_S_ACK_PENDING in priv->s_flags and sends nothing (no TID send engine).
void tid_rdma_trigger_ack(rvt_qp* qp) __must_hold(&qp->s_lock);
// rc.h: defers the NAK to the end of the receive interrupt; the model marks
// it (model_rnr_nak_deferred) without queueing the QP (no qp_wait_list).
void rc_defered_ack(hfi1_ctxtdata* rcd, rvt_qp* qp) __must_hold(&qp->s_lock);

// ---- The model's platform (core/exp_rcv.cc).

// The segment's pagesets (the kernel: kern_find_pages over the sge, then
// tid_rdma_find_phys_blocks_4k/8k, then DMA mapping; reused on a retry):
// the model copies ss's. `pages` is unused. 0 (the model never fails).
int kern_get_phys_blocks(tid_rdma_flow* flow, page** pages, rvt_sge_state* ss, bool* last);
// DMA unmapping of the flow's pagesets (the model clears `mapped`).
void dma_unmap_flow(tid_rdma_flow* flow);
// The QP waits for memory: never reached in the model (aborts).
void hfi1_wait_kmem(rvt_qp* qp);
// verbs.h: a PSN of the flow's generation in the KDETH space.
u32 full_flow_psn(tid_rdma_flow* flow, u32 psn);

// exp_rcv.c: the context's groups over its expected RcvArray entries
// (expected_base, expected_count), all on tid_group_list. At context creation.
int hfi1_alloc_ctxt_rcv_groups(hfi1_ctxtdata* rcd);

// tid_rdma.c: a fresh request of `qp` with room for `n_flows` segments
// (hfi1_init_trdma_req's resource part; n_flows <= MAX_FLOWS - 1), its flow
// array allocated (hfi1_kern_exp_rcv_alloc_flows, as at QP creation).
void hfi1_model_init_trdma_req(tid_rdma_request* req, rvt_qp* qp, u16 n_flows);

// NOT KERNEL: the RcvArray entries the request's set-up segments hold
// (the nodes' counts over [clear_tail, setup_head); 0 without a flow
// array). The request's QP's s_lock, or the model at rest.
u32 tid_request_held_entries(const tid_rdma_request& req);

// tid_rdma.c, mirrored in core/tid_rdma_rcvarray.cc: the request's flow
// array. alloc: nothing if it has one; else MAX_FLOWS flows, each pointing
// at `req` with no pagesets; 0, or -ENOMEM. free: kfree, flows = nullptr,
// whatever the ring still holds ([R-6]: set-up slots would leak their
// entries, which G5 then reports). __trdma_clean_swqe: the WQE's at its
// completion.
int hfi1_kern_exp_rcv_alloc_flows(tid_rdma_request* req, gfp_t gfp);
void hfi1_kern_exp_rcv_free_flows(tid_rdma_request* req);
void __trdma_clean_swqe(rvt_qp* qp, rvt_swqe* wqe);
// tid_rdma.h trdma_clean_swqe(): "clean flows for swqe if large send queue".
inline void trdma_clean_swqe(rvt_qp* qp, rvt_swqe* wqe) {
  if (!wqe->priv) return;
  __trdma_clean_swqe(qp, wqe);
}

// tid_rdma.c: sets up the next segment of `req` (flows[setup_head]): its
// pagesets from `ss`, TID entries from the groups (kern_alloc_tids), the
// RcvArray programmed (kern_program_rcvarray), the flow's PSNs from the QP's
// flow_state, whose psn advances by the segment's packets. Takes exp_lock.
// Returns 0; -EINVAL if the ring is full; -EAGAIN if another QP waits on
// rarr_queue ahead of it or the TIDs are short (the QP is then queued on
// rarr_queue). Caller holds the QP's s_lock.
int hfi1_kern_exp_rcv_setup(tid_rdma_request* req, rvt_sge_state* ss, bool* last)
    __must_hold(&req->qp->s_lock);

// tid_rdma.c: frees the oldest segment's TID entries (flows[clear_tail]) and
// wakes the head of rarr_queue. Takes exp_lock. 0, or -EINVAL if none is set
// up. Caller holds s_lock.
int hfi1_kern_exp_rcv_clear(tid_rdma_request* req) __must_hold(&req->qp->s_lock);

// tid_rdma.c: hfi1_kern_exp_rcv_clear until none is left.
void hfi1_kern_exp_rcv_clear_all(tid_rdma_request* req) __must_hold(&req->qp->s_lock);

// hfi.h / init.c: writes RcvArray entry `index` (a device-wide index):
// PT_EXPECTED with the buffer's address, or PT_INVALID. Model hardware: the
// entry holds (pa | 1) when valid, 0 when invalid; programming an entry that
// is already valid is recorded in the context's audit (invariant G4).
void hfi1_put_tid(hfi1_devdata* dd, u32 index, u32 type, u64 pa, u16 order);

// exp_rcv.h: a write-combining fill of an entry (nothing to do in the model:
// no write-combining mapping).
inline void rcv_array_wc_fill(hfi1_devdata* dd, u32 index) {
  (void)dd;
  (void)index;
}

#endif  // FLOWCHECK_CORE_EXP_RCV_H_
