// core/exp_rcv.cc: see exp_rcv.h. The platform around the RcvArray code of
// tid_rdma.c (which core mirrors in tid_rdma_rcvarray.cc, and upstream mode
// compiles from the kernel's text): exp_rcv.[ch]'s group lists, the
// modelled RcvArray (hfi1_put_tid), and the model's stand-ins for the page
// walk and DMA mapping.
#include "core/exp_rcv.h"

#include <cstdio>
#include <cstdlib>

void tid_group_add_tail(tid_group* grp, exp_tid_set* set) {
  list_add_tail(&grp->list, &set->list);
  set->count++;
}

void tid_group_remove(tid_group* grp, exp_tid_set* set) {
  list_del_init(&grp->list);
  set->count--;
}

void tid_group_move(tid_group* group, exp_tid_set* s1, exp_tid_set* s2) {
  tid_group_remove(group, s1);
  tid_group_add_tail(group, s2);
}

int hfi1_alloc_ctxt_rcv_groups(hfi1_ctxtdata* rcd) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  // At context creation, before anyone else can see it.
  INIT_LIST_HEAD(&rcd->tid_group_list.list);
  INIT_LIST_HEAD(&rcd->tid_used_list.list);
  INIT_LIST_HEAD(&rcd->tid_full_list.list);
  const u32 ngroups = rcd->expected_count / rcd->dd->rcv_entries.group_size;
  rcd->groups.reset(new tid_group[ngroups]());
  rcd->rcv_array_groups = static_cast<u16>(ngroups);
  u32 tidbase = rcd->expected_base;
  for (u32 i = 0; i < ngroups; i++) {
    tid_group* grp = &rcd->groups[i];
    INIT_LIST_HEAD(&grp->list);
    grp->size = static_cast<u8>(rcd->dd->rcv_entries.group_size);
    grp->base = tidbase;
    tid_group_add_tail(grp, &rcd->tid_group_list);
    tidbase += rcd->dd->rcv_entries.group_size;
  }
  return 0;
}

void hfi1_model_init_trdma_req(tid_rdma_request* req, rvt_qp* qp, u16 n_flows) {
  *req = tid_rdma_request();
  req->qp = qp;
  req->rcd = qp->priv->rcd;
  req->n_flows = n_flows;
  hfi1_kern_exp_rcv_alloc_flows(req, GFP_KERNEL);  // never fails in the model
}

u32 hfi1_build_tid_rdma_read_packet(rvt_swqe* wqe, ib_other_headers* ohdr, u32* bth1, u32* bth2,
                                    u32* len) {
  (void)ohdr;
  (void)bth1;
  tid_rdma_request* req = wqe_to_tid_req(wqe);
  tid_rdma_flow* flow = &req->flows[req->flow_idx];
  rvt_qp* qp = req->qp;
  hfi1_qp_priv* qpriv = qp->priv;
  /* This is the IB psn used to send the request */
  *bth2 = mask_psn(flow->flow_state.ib_spsn + flow->pkt);
  /* TID Entries for TID RDMA READ payload */
  const u32 req_len = sizeof(*flow->tid_entry) * (flow->tidcnt - flow->tid_idx);
  *bth2 |= IB_BTH_REQ_ACK;
  /* We are done with this segment */
  flow->sent += *len;
  req->cur_seg++;
  qp->s_state = TID_OP(READ_REQ);
  req->ack_pending++;
  req->flow_idx = (req->flow_idx + 1) & (MAX_FLOWS - 1);
  qpriv->pending_tid_r_segs++;
  qp->s_num_rd_atomic++;
  /* Set the TID RDMA READ request payload size */
  *len = req_len;
  // sizeof(struct tid_rdma_read_req) / sizeof(u32): kdeth0, kdeth1, the
  // 16-byte RETH, tid_flow_psn, tid_flow_qp, verbs_qp.
  return 9;
}

u32 restart_sge(rvt_sge_state* ss, rvt_swqe* wqe, u32 psn, u32 pmtu) {
  (void)ss;
  (void)wqe;
  (void)psn;
  (void)pmtu;
  return 0;
}

u32 tid_request_held_entries(const tid_rdma_request& req) {
  if (req.flows == nullptr) return 0;
  u32 held = 0;
  for (u16 s = req.clear_tail; s != req.setup_head; s = (s + 1) & (MAX_FLOWS - 1)) {
    for (int n = 0; n < req.flows[s].tnode_cnt; ++n) held += req.flows[s].tnode[n].cnt;
  }
  return held;
}

void hfi1_put_tid(hfi1_devdata* dd, u32 index, u32 type, u64 pa, u16 order) {
  (void)order;
  for (const auto& rcd : dd->rcd) {
    if (rcd == nullptr || index < rcd->expected_base ||
        index >= static_cast<u32>(rcd->expected_base) + rcd->expected_count) {
      continue;
    }
    std::atomic<u64>& entry = rcd->rcv_array[index - rcd->expected_base];
    const u64 value = type == PT_EXPECTED ? (pa | 1) : 0;
    if (type == PT_EXPECTED && entry.load(std::memory_order_relaxed) != 0) {
      rcd->rcvarray_audit.double_programs.fetch_add(1, std::memory_order_relaxed);
      rcd->rcvarray_audit.last_double_programmed.store(index, std::memory_order_relaxed);
    }
    entry.store(value, std::memory_order_relaxed);
    return;
  }
  std::fprintf(stderr, "hfi1 model: hfi1_put_tid outside every context's RcvArray: %u\n", index);
  std::abort();
}

namespace {

// A buffer address for pageset `i` of a flow: distinct per flow and set, so
// a double programming shows a different address (the model maps nothing).
u64 ModelPagesetAddress(const tid_rdma_flow* flow, int i) {
  return (reinterpret_cast<u64>(flow) << 8) + (static_cast<u64>(i) << 13);
}

}  // namespace

int kern_get_phys_blocks(tid_rdma_flow* flow, page** pages, rvt_sge_state* ss, bool* last) {
  (void)pages;
  if (flow->npagesets) return 0;  // reuse previously computed pagesets
  const int n = ss->psets < TID_RDMA_MAX_PAGES ? ss->psets : TID_RDMA_MAX_PAGES;
  int idx = 0;
  for (int i = 0; i < n; ++i) {
    flow->pagesets[i] = {ModelPagesetAddress(flow, i), static_cast<u8>(idx), ss->pset_pages[i],
                         true};
    idx += ss->pset_pages[i];
  }
  flow->npagesets = static_cast<u8>(n);
  *last = true;
  return 0;
}

void dma_unmap_flow(tid_rdma_flow* flow) {
  for (int i = 0; i < flow->npagesets; i++) flow->pagesets[i].mapped = false;
}

void hfi1_wait_kmem(rvt_qp* qp) {
  (void)qp;
  std::fprintf(stderr, "hfi1 model: hfi1_wait_kmem: the model's pagesets never fail to map\n");
  std::abort();
}

u32 full_flow_psn(tid_rdma_flow* flow, u32 psn) {
  return mask_psn((flow->flow_state.generation << HFI1_KDETH_BTH_SEQ_SHIFT) |
                  (psn & HFI1_KDETH_BTH_SEQ_MASK));
}
