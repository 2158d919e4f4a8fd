// core/tid_rdma_rcvarray.cc: the RcvArray half of tid_rdma.c (Linux 6.1),
// mirrored statement by statement with the kernel's names and signatures
// (core/exp_rcv.h); trace points are left out. --config=upstream compiles
// the kernel's own text of these functions instead (upstream/functions.txt).
//
// The helpers run under exp_lock, which hfi1_kern_exp_rcv_setup / _clear
// take; the kernel's text names the context flow->req->rcd and the QP
// flow->req->qp (or fqp), which the thread-safety analysis cannot tie to
// the locks it knows: lockdep_assert_held checks s_lock at run time.
#include <cstdio>

#include "core/exp_rcv.h"
#include "core/tid_rdma.h"
#include "lockcheck/lockdep.h"

#define NO_ANALYSIS ABSL_NO_THREAD_SAFETY_ANALYSIS

u8 trdma_pset_order(tid_rdma_pageset* s) {
  u8 count = s->count;
  return static_cast<u8>(ilog2(count) + 1);
}

void kern_add_tid_node(tid_rdma_flow* flow, hfi1_ctxtdata* rcd, char* s, tid_group* grp, u8 cnt)
    NO_ANALYSIS {
  (void)s;  // the trace point's label
  kern_tid_node* node = &flow->tnode[flow->tnode_cnt++];

  WARN_ON_ONCE(flow->tnode_cnt >= (TID_RDMA_MAX_SEGMENT_SIZE >> PAGE_SHIFT));
  if (WARN_ON_ONCE(cnt & 1))
    dd_dev_err(rcd->dd, "unexpected odd allocation cnt %u map 0x%x used %u", cnt, grp->map,
               grp->used);

  node->grp = grp;
  node->map = grp->map;
  node->cnt = cnt;
}

// Plans flow->npagesets entries without changing any group: complete groups
// first, then partly used ones, then the rest from one more complete group.
int kern_alloc_tids(tid_rdma_flow* flow) NO_ANALYSIS {
  hfi1_ctxtdata* rcd = flow->req->rcd;
  hfi1_devdata* dd = rcd->dd;
  u32 ngroups, pageidx = 0;
  tid_group *group = nullptr, *used;
  u8 use;

  flow->tnode_cnt = 0;
  ngroups = flow->npagesets / dd->rcv_entries.group_size;
  if (!ngroups) goto used_list;

  // First look at complete groups
  list_for_each_entry(group, &rcd->tid_group_list.list, list) {
    kern_add_tid_node(flow, rcd, const_cast<char*>("complete groups"), group, group->size);

    pageidx += group->size;
    if (!--ngroups) break;
  }

  if (pageidx >= flow->npagesets) goto ok;

used_list:
  // Now look at partially used groups
  list_for_each_entry(used, &rcd->tid_used_list.list, list) {
    use = min_t(u32, flow->npagesets - pageidx, used->size - used->used);
    kern_add_tid_node(flow, rcd, const_cast<char*>("used groups"), used, use);

    pageidx += use;
    if (pageidx >= flow->npagesets) goto ok;
  }

  // Look again at a complete group, continuing from where we left. However,
  // if we are at the head, we have reached the end of the complete groups
  // list from the first loop above.
  if (group && &group->list == &rcd->tid_group_list.list) goto bail_eagain;
  group = list_prepare_entry(group, &rcd->tid_group_list.list, list);
  if (list_is_last(&group->list, &rcd->tid_group_list.list)) goto bail_eagain;
  group = list_next_entry(group, list);
  use = min_t(u32, flow->npagesets - pageidx, group->size);
  kern_add_tid_node(flow, rcd, const_cast<char*>("complete continue"), group, use);
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
  u32 pmtu_pg = flow->req->qp->pmtu >> PAGE_SHIFT;
  u32 rcventry, npages = 0, pair = 0, tidctrl;
  u8 i, cnt = 0;

  for (i = 0; i < grp->size; i++) {
    rcventry = grp->base + i;

    if (node->map & BIT(i) || cnt >= node->cnt) {
      rcv_array_wc_fill(dd, rcventry);
      continue;
    }
    pset = &flow->pagesets[(*pset_idx)++];
    if (pset->count) {
      hfi1_put_tid(dd, rcventry, PT_EXPECTED, pset->addr, trdma_pset_order(pset));
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
      flow->npkts += (npages + pmtu_pg - 1) >> ilog2(pmtu_pg);
      npages = 0;
    }

    if (grp->used == grp->size - 1)
      tid_group_move(grp, &rcd->tid_used_list, &rcd->tid_full_list);
    else if (!grp->used)
      tid_group_move(grp, &rcd->tid_group_list, &rcd->tid_used_list);

    grp->used++;
    grp->map |= BIT(i);
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

    if (node->map & BIT(i) || cnt >= node->cnt) {
      rcv_array_wc_fill(dd, rcventry);
      continue;
    }

    hfi1_put_tid(dd, rcventry, PT_INVALID, 0, 0);

    grp->used--;
    grp->map &= ~BIT(i);
    cnt++;

    if (grp->used == grp->size - 1)
      tid_group_move(grp, &rcd->tid_full_list, &rcd->tid_used_list);
    else if (!grp->used)
      tid_group_move(grp, &rcd->tid_used_list, &rcd->tid_group_list);
  }
  if (WARN_ON_ONCE(cnt & 1)) {
    dd_dev_err(rcd->dd, "unexpected odd free cnt %u map 0x%x used %u", cnt, grp->map,
               grp->used);
  }
}

void kern_program_rcvarray(tid_rdma_flow* flow) {
  u32 pset_idx = 0;
  int i;

  flow->npkts = 0;
  flow->tidcnt = 0;
  for (i = 0; i < flow->tnode_cnt; i++) kern_program_rcv_group(flow, i, &pset_idx);
}

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

  // Get pages, identify contiguous physical memory chunks for the segment.
  if (kern_get_phys_blocks(flow, qpriv->pages, ss, last)) {
    hfi1_wait_kmem(flow->req->qp);
    return -ENOMEM;
  }

  spin_lock_irqsave(&rcd->exp_lock, flags);
  if (kernel_tid_waiters(rcd, &rcd->rarr_queue, flow->req->qp)) goto queue;

  // Allocate the TIDs from the groups; if there are not enough, try again
  // later.
  if (kern_alloc_tids(flow)) goto queue;
  // Program the TID entries with the pagesets, compute the tidarray.
  kern_program_rcvarray(flow);

  // The flow's PSNs, from the QP's flow state (the kernel does it here, the
  // most accurate time and place).
  memset(&flow->flow_state, 0x0, sizeof(flow->flow_state));
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

void hfi1_tid_rdma_reset_flow(tid_rdma_flow* flow) { flow->npagesets = 0; }

// Kernel: tid_rdma.c hfi1_kern_exp_rcv_free_flows()
void hfi1_kern_exp_rcv_free_flows(tid_rdma_request* req) {
  kfree(req->flows);
  req->flows = NULL;
}

// Kernel: tid_rdma.c __trdma_clean_swqe()
void __trdma_clean_swqe(rvt_qp* qp, rvt_swqe* wqe) {
  hfi1_swqe_priv* p = wqe->priv;

  hfi1_kern_exp_rcv_free_flows(&p->tid_req);
}

// Kernel: tid_rdma.c hfi1_kern_exp_rcv_alloc_flows(): "This can be called at
// QP create time or in the data path."
int hfi1_kern_exp_rcv_alloc_flows(tid_rdma_request* req, gfp_t gfp) {
  tid_rdma_flow* flows;
  int i;

  if (likely(req->flows)) return 0;
  flows = kmalloc_node(MAX_FLOWS * sizeof(*flows), gfp, req->rcd->numa_id);
  if (!flows) return -ENOMEM;
  // mini init
  for (i = 0; i < MAX_FLOWS; i++) {
    flows[i].req = req;
    flows[i].npagesets = 0;
    flows[i].pagesets[0].mapped = 0;
    flows[i].resync_npkts = 0;
  }
  req->flows = flows;
  return 0;
}

int hfi1_kern_exp_rcv_clear(tid_rdma_request* req) NO_ANALYSIS {
  tid_rdma_flow* flow = &req->flows[req->clear_tail];
  hfi1_ctxtdata* rcd = req->rcd;
  unsigned long flags;
  int i;
  rvt_qp* fqp;

  lockdep_assert_held(&req->qp->s_lock);
  // Exit if we have nothing in the flow circular buffer
  if (!CIRC_CNT(req->setup_head, req->clear_tail, MAX_FLOWS)) return -EINVAL;

  spin_lock_irqsave(&rcd->exp_lock, flags);

  for (i = 0; i < flow->tnode_cnt; i++) kern_unprogram_rcv_group(flow, i);
  // To prevent double unprogramming
  flow->tnode_cnt = 0;
  // get head before dropping lock
  fqp = first_qp(rcd, &rcd->rarr_queue);
  spin_unlock_irqrestore(&rcd->exp_lock, flags);

  dma_unmap_flow(flow);

  hfi1_tid_rdma_reset_flow(flow);
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
  // Use memory barrier for proper ordering
  while (CIRC_CNT(req->setup_head, req->clear_tail, MAX_FLOWS)) {
    if (hfi1_kern_exp_rcv_clear(req)) break;
  }
}
