// core/exp_rcv.cc: see exp_rcv.h. The bodies follow tid_rdma.c and
// exp_rcv.[ch] (Linux 6.1) statement by statement; trace points, DMA mapping
// and the sge walk are left out (see each function).
#include "core/exp_rcv.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/tid_rdma.h"
#include "lockcheck/lockdep.h"

// The ring helpers of linux/circ_buf.h.
#define CIRC_CNT(head, tail, size) (((head) - (tail)) & ((size)-1))
#define CIRC_SPACE(head, tail, size) CIRC_CNT((tail), ((head) + 1), (size))

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
  const u32 ngroups = rcd->expected_count / kModelRcvGroupSize;
  rcd->groups.reset(new tid_group[ngroups]());
  rcd->rcv_array_groups = static_cast<u16>(ngroups);
  u32 tidbase = rcd->expected_base;
  for (u32 i = 0; i < ngroups; i++) {
    tid_group* grp = &rcd->groups[i];
    INIT_LIST_HEAD(&grp->list);
    grp->size = kModelRcvGroupSize;
    grp->base = tidbase;
    tid_group_add_tail(grp, &rcd->tid_group_list);
    tidbase += kModelRcvGroupSize;
  }
  return 0;
}

void hfi1_model_init_trdma_req(tid_rdma_request* req, rvt_qp* qp, u16 n_flows) {
  *req = tid_rdma_request();
  req->qp = qp;
  req->rcd = qp->priv->rcd;
  req->n_flows = n_flows;
  for (tid_rdma_flow& flow : req->flows) flow.req = req;
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

// The model's kern_get_phys_blocks: the pagesets are the segment's (the
// kernel computes them from its pages with tid_rdma_find_phys_blocks_4k/8k,
// reuses them on a retry, and DMA-maps them; the model needs neither).
int kern_get_phys_blocks(tid_rdma_flow* flow, rvt_sge_state* ss, bool* last) {
  if (flow->npagesets) return 0;  // reuse previously computed pagesets
  const int n = std::min<int>(ss->psets, TID_RDMA_MAX_PAGES);
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

void kern_add_tid_node(tid_rdma_flow* flow, hfi1_ctxtdata* rcd, tid_group* grp, u8 cnt) {
  kern_tid_node* node = &flow->tnode[flow->tnode_cnt++];
  // The kernel WARNs on an odd count (dd_dev_err); so does the model's log.
  if (cnt & 1) {
    std::fprintf(stderr, "hfi1 model: ctxt %u: unexpected odd allocation cnt %u map 0x%x used %u\n",
                 rcd->ctxt, cnt, grp->map, grp->used);
  }
  node->grp = grp;
  node->map = grp->map;
  node->cnt = cnt;
}

// The helpers below run under exp_lock, which hfi1_kern_exp_rcv_setup /
// _clear take: the analysis cannot tie flow->req->rcd to a lock it knows.
#define NO_ANALYSIS ABSL_NO_THREAD_SAFETY_ANALYSIS

#define list_for_each_group(pos, head) \
  for (pos = list_entry((head)->next, tid_group, list); &pos->list != (head); \
       pos = list_entry(pos->list.next, tid_group, list))

// Plans flow->npagesets entries without changing any group (see exp_rcv.h).
int kern_alloc_tids(tid_rdma_flow* flow) NO_ANALYSIS {
  hfi1_ctxtdata* rcd = flow->req->rcd;
  u32 ngroups, pageidx = 0;
  tid_group *group = nullptr, *used;
  u8 use;

  flow->tnode_cnt = 0;
  ngroups = flow->npagesets / kModelRcvGroupSize;
  if (!ngroups) goto used_list;

  // First look at complete groups
  list_for_each_group(group, &rcd->tid_group_list.list) {
    kern_add_tid_node(flow, rcd, group, group->size);
    pageidx += group->size;
    if (!--ngroups) break;
  }
  if (pageidx >= flow->npagesets) goto ok;

used_list:
  // Now look at partially used groups
  list_for_each_group(used, &rcd->tid_used_list.list) {
    use = static_cast<u8>(std::min<u32>(flow->npagesets - pageidx, used->size - used->used));
    kern_add_tid_node(flow, rcd, used, use);
    pageidx += use;
    if (pageidx >= flow->npagesets) goto ok;
  }

  // Look again at a complete group, continuing from where we left. However,
  // if we are at the head, we have reached the end of the complete groups
  // list from the first loop above.
  if (group && &group->list == &rcd->tid_group_list.list) goto bail_eagain;
  // list_prepare_entry, list_is_last, list_next_entry
  if (!group) group = list_entry(&rcd->tid_group_list.list, tid_group, list);
  if (group->list.next == &rcd->tid_group_list.list) goto bail_eagain;
  group = list_entry(group->list.next, tid_group, list);
  use = static_cast<u8>(std::min<u32>(flow->npagesets - pageidx, group->size));
  kern_add_tid_node(flow, rcd, group, use);
  pageidx += use;
  if (pageidx >= flow->npagesets) goto ok;
bail_eagain:
  return -EAGAIN;
ok:
  return 0;
}

void kern_program_rcv_group(tid_rdma_flow* flow, int grp_num, u32* pset_idx) NO_ANALYSIS {
  hfi1_ctxtdata* rcd = flow->req->rcd;
  hfi1_devdata* dd = rcd->dd;
  kern_tid_node* node = &flow->tnode[grp_num];
  tid_group* grp = node->grp;
  tid_rdma_pageset* pset;
  const u32 pmtu_pg = flow->req->qp->pmtu >> PAGE_SHIFT;
  u32 rcventry, npages = 0, pair = 0, tidctrl;
  u8 i, cnt = 0;

  for (i = 0; i < grp->size; i++) {
    rcventry = grp->base + i;

    if (node->map & (1u << i) || cnt >= node->cnt) {
      rcv_array_wc_fill(dd, rcventry);
      continue;
    }
    pset = &flow->pagesets[(*pset_idx)++];
    if (pset->count) {
      hfi1_put_tid(dd, rcventry, PT_EXPECTED, pset->addr, 0);
    } else {
      hfi1_put_tid(dd, rcventry, PT_INVALID, 0, 0);
    }
    npages += pset->count;

    rcventry -= rcd->expected_base;
    tidctrl = pair ? 0x3 : rcventry & 0x1 ? 0x2 : 0x1;
    // One TID entry covers a RcvArray pair (tidctrl 0x3) if the bit position
    // is even, both bits are free in the group map and 2 more are needed.
    pair = !(i & 0x1) && !((node->map >> i) & 0x3) && node->cnt >= cnt + 2;
    if (!pair) {
      if (!pset->count) tidctrl = 0x1;
      flow->tid_entry[flow->tidcnt++] =
          EXP_TID_SET(IDX, rcventry >> 1) | EXP_TID_SET(CTRL, tidctrl) | EXP_TID_SET(LEN, npages);
      // Efficient DIV_ROUND_UP(npages, pmtu_pg)
      flow->npkts += (npages + pmtu_pg - 1) >> (31 - __builtin_clz(pmtu_pg));  // ilog2
      npages = 0;
    }

    if (grp->used == grp->size - 1)
      tid_group_move(grp, &rcd->tid_used_list, &rcd->tid_full_list);
    else if (!grp->used)
      tid_group_move(grp, &rcd->tid_group_list, &rcd->tid_used_list);

    grp->used++;
    grp->map |= 1u << i;
    cnt++;
  }
}

void kern_unprogram_rcv_group(tid_rdma_flow* flow, int grp_num) NO_ANALYSIS {
  hfi1_ctxtdata* rcd = flow->req->rcd;
  hfi1_devdata* dd = rcd->dd;
  kern_tid_node* node = &flow->tnode[grp_num];
  tid_group* grp = node->grp;
  u32 rcventry;
  u8 i, cnt = 0;

  for (i = 0; i < grp->size; i++) {
    rcventry = grp->base + i;

    if (node->map & (1u << i) || cnt >= node->cnt) {
      rcv_array_wc_fill(dd, rcventry);
      continue;
    }

    hfi1_put_tid(dd, rcventry, PT_INVALID, 0, 0);

    grp->used--;
    grp->map &= ~(1u << i);
    cnt++;

    if (grp->used == grp->size - 1)
      tid_group_move(grp, &rcd->tid_full_list, &rcd->tid_used_list);
    else if (!grp->used)
      tid_group_move(grp, &rcd->tid_used_list, &rcd->tid_group_list);
  }
  if (cnt & 1) {
    std::fprintf(stderr, "hfi1 model: ctxt %u: unexpected odd free cnt %u map 0x%x used %u\n",
                 rcd->ctxt, cnt, grp->map, grp->used);
  }
}

void kern_program_rcvarray(tid_rdma_flow* flow) NO_ANALYSIS {
  u32 pset_idx = 0;
  flow->npkts = 0;
  flow->tidcnt = 0;
  for (int i = 0; i < flow->tnode_cnt; i++) kern_program_rcv_group(flow, i, &pset_idx);
}

// verbs.h: the flow's PSN in the KDETH space of its generation.
u32 full_flow_psn(tid_rdma_flow* flow, u32 psn) {
  return mask_psn((flow->flow_state.generation << HFI1_KDETH_BTH_SEQ_SHIFT) |
                  (psn & HFI1_KDETH_BTH_SEQ_MASK));
}

}  // namespace

// The kernel's text names the QP flow->req->qp (and, in _clear, fqp when it
// is req->qp), which the analysis cannot tie to req->qp->s_lock: it is
// checked at run time (lockdep_assert_held) instead.
int hfi1_kern_exp_rcv_setup(tid_rdma_request* req, rvt_sge_state* ss, bool* last) NO_ANALYSIS {
  tid_rdma_flow* flow = &req->flows[req->setup_head];
  hfi1_ctxtdata* rcd = req->rcd;
  hfi1_qp_priv* qpriv = req->qp->priv;
  unsigned long flags;
  rvt_qp* fqp;
  u16 clear_tail = req->clear_tail;

  lockdep_assert_held(&req->qp->s_lock);
  // No space in the flow ring, or already n_flows set up.
  if (!CIRC_SPACE(req->setup_head, clear_tail, MAX_FLOWS) ||
      CIRC_CNT(req->setup_head, clear_tail, MAX_FLOWS) >= req->n_flows)
    return -EINVAL;

  // The model's pagesets never fail to map (the kernel: hfi1_wait_kmem,
  // -ENOMEM).
  if (kern_get_phys_blocks(flow, ss, last)) return -ENOMEM;

  spin_lock_irqsave(&rcd->exp_lock, flags);
  if (kernel_tid_waiters(rcd, &rcd->rarr_queue, flow->req->qp)) goto queue;

  // Allocate the TIDs from the groups; if there are not enough, try again
  // later.
  if (kern_alloc_tids(flow)) goto queue;
  // Program the TID entries with the pagesets, compute the tidarray.
  kern_program_rcvarray(flow);

  // The flow's PSNs, from the QP's flow state (the kernel does it here, the
  // most accurate time and place).
  flow->flow_state = {};
  flow->idx = qpriv->flow_state.index;
  flow->flow_state.generation = qpriv->flow_state.generation;
  flow->flow_state.spsn = qpriv->flow_state.psn;
  flow->flow_state.lpsn = flow->flow_state.spsn + flow->npkts - 1;
  flow->flow_state.r_next_psn = full_flow_psn(flow, flow->flow_state.spsn);
  qpriv->flow_state.psn += flow->npkts;

  dequeue_tid_waiter(rcd, &rcd->rarr_queue, flow->req->qp);
  // get head before dropping lock
  fqp = first_qp(rcd, &rcd->rarr_queue);
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  tid_rdma_schedule_tid_wakeup(fqp);

  req->setup_head = (req->setup_head + 1) & (MAX_FLOWS - 1);
  return 0;
queue:
  queue_qp_for_tid_wait(rcd, &rcd->rarr_queue, flow->req->qp);
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  return -EAGAIN;
}

int hfi1_kern_exp_rcv_clear(tid_rdma_request* req) NO_ANALYSIS {
  tid_rdma_flow* flow = &req->flows[req->clear_tail];
  hfi1_ctxtdata* rcd = req->rcd;
  unsigned long flags;
  rvt_qp* fqp;

  lockdep_assert_held(&req->qp->s_lock);
  // Exit if we have nothing in the flow circular buffer
  if (!CIRC_CNT(req->setup_head, req->clear_tail, MAX_FLOWS)) return -EINVAL;

  spin_lock_irqsave(&rcd->exp_lock, flags);
  for (int i = 0; i < flow->tnode_cnt; i++) kern_unprogram_rcv_group(flow, i);
  // To prevent double unprogramming
  flow->tnode_cnt = 0;
  // get head before dropping lock
  fqp = first_qp(rcd, &rcd->rarr_queue);
  spin_unlock_irqrestore(&rcd->exp_lock, flags);

  // dma_unmap_flow; hfi1_tid_rdma_reset_flow
  for (int i = 0; i < flow->npagesets; i++) flow->pagesets[i].mapped = false;
  flow->npagesets = 0;
  req->clear_tail = (req->clear_tail + 1) & (MAX_FLOWS - 1);

  if (fqp == req->qp) {
    __trigger_tid_waiter(fqp);
    rvt_put_qp(fqp);
  } else {
    tid_rdma_schedule_tid_wakeup(fqp);
  }
  return 0;
}

void hfi1_kern_exp_rcv_clear_all(tid_rdma_request* req) {
  while (CIRC_CNT(req->setup_head, req->clear_tail, MAX_FLOWS)) {
    if (hfi1_kern_exp_rcv_clear(req)) break;
  }
}
