// upstream/trampolines.h: core's flow-layer API (core/tid_rdma.h) defined on
// top of the kernel's own functions. Included once, last, by the generated
// translation unit, after the kernel's text (whose functions are renamed
// upstream_<name> and mostly static, hence the same translation unit).
//
// A trampoline is the harness's way in: fuzz targets, stress threads, tests
// and core's own callers (core/callers.cc, core/qp.cc) call core's names and
// land here. Each one
//  * keeps core's run-time lock contract where the kernel only states it to
//    the compiler: lockdep_assert_held at entry when the kernel's body has no
//    such assertion of its own (kern_reserve_flow, kern_setup_hw_flow,
//    kern_clear_hw_flow, hfi1_kern_setup_hw_flow, hfi1_kern_clear_hw_flow,
//    hfi1_tid_rdma_flush_wait), as core's versions do;
//  * leaves the audit (F4, W4, W5) to the kernel's own calls, redirected
//    through core's audited wrappers as core's mirror's are
//    (upstream/shim/prelude.h, core/model_audit.h);
//  * otherwise only calls the kernel's function.
// Calls from one kernel function to another stay inside the kernel's text
// (except the audited redirections of functions.txt), as in the driver.
#ifndef FLOWCHECK_UPSTREAM_TRAMPOLINES_H_
#define FLOWCHECK_UPSTREAM_TRAMPOLINES_H_

#include <cstdio>
#include <cstdlib>

// The shims end with the kernel's text.
#undef BUILD_BUG_ON
#undef hfi1_ibport
#undef hfi1_pportdata
#undef to_iport
#undef ppd_from_ibp
#undef dd_from_ibdev
#undef queue_work_on
#undef get_random_u32
#undef list_del_init

namespace {

// The context whose random source the kernel's get_random_u32() draws from
// (set by hfi1_kern_init_ctxt_generations' trampoline for its duration).
thread_local hfi1_model_random *upstream_random_source = nullptr;

}  // namespace

u32 upstream_get_random_u32() {
  if (upstream_random_source == nullptr) {
    std::fprintf(stderr,
                 "upstream: the kernel's get_random_u32() ran outside "
                 "hfi1_kern_init_ctxt_generations' trampoline: no random source\n");
    std::abort();
  }
  return get_random_u32(upstream_random_source);
}

// ---- The audited wrappers (declared in upstream/shim/prelude.h) ----------
// The kernel's function through core's audited wrapper (core/model_audit.h).

static void upstream_audited_kern_clear_hw_flow(struct hfi1_ctxtdata *rcd, u32 flow_idx) {
  hfi1_audited_kern_clear_hw_flow(&upstream_kern_clear_hw_flow, rcd, flow_idx);
}

static void upstream_granted_dequeue_tid_waiter(struct hfi1_ctxtdata *rcd,
                                                struct tid_queue *queue, struct rvt_qp *qp) {
  hfi1_granted_dequeue_tid_waiter(&upstream_dequeue_tid_waiter, rcd, queue, qp);
}

static u32 upstream_r11_position_in_queue(struct hfi1_qp_priv *qpriv, struct tid_queue *queue) {
  return hfi1_r11_position_in_queue(&upstream_position_in_queue, qpriv, queue);
}

// ---- core/tid_rdma.h, flows and generations -------------------------------

u32 mask_generation(u32 a) { return upstream_mask_generation(a); }

u32 kern_flow_generation_next(u32 gen) { return upstream_kern_flow_generation_next(gen); }

int kern_reserve_flow(struct hfi1_ctxtdata *rcd, int last) {
  lockdep_assert_held(&rcd->exp_lock);
  return upstream_kern_reserve_flow(rcd, last);
}

void kern_set_hw_flow(struct hfi1_ctxtdata *rcd, u32 generation, u32 flow_idx) {
  upstream_kern_set_hw_flow(rcd, generation, flow_idx);
}

u32 kern_setup_hw_flow(struct hfi1_ctxtdata *rcd, u32 flow_idx) {
  lockdep_assert_held(&rcd->exp_lock);
  return upstream_kern_setup_hw_flow(rcd, flow_idx);
}

void kern_clear_hw_flow(struct hfi1_ctxtdata *rcd, u32 flow_idx) {
  lockdep_assert_held(&rcd->exp_lock);
  upstream_kern_clear_hw_flow(rcd, flow_idx);
}

int hfi1_kern_setup_hw_flow(struct hfi1_ctxtdata *rcd, struct rvt_qp *qp) {
  lockdep_assert_held(&qp->s_lock);
  return upstream_hfi1_kern_setup_hw_flow(rcd, qp);
}

void hfi1_kern_clear_hw_flow(struct hfi1_ctxtdata *rcd, struct rvt_qp *qp) {
  lockdep_assert_held(&qp->s_lock);
  upstream_hfi1_kern_clear_hw_flow(rcd, qp);
}

// The RcvArray side (core/exp_rcv.h): each only calls the kernel's function
// (whose text asserts s_lock itself where core's does).
u8 trdma_pset_order(struct tid_rdma_pageset *s) { return upstream_trdma_pset_order(s); }
void kern_add_tid_node(struct tid_rdma_flow *flow, struct hfi1_ctxtdata *rcd, char *s,
                       struct tid_group *grp, u8 cnt) {
  upstream_kern_add_tid_node(flow, rcd, s, grp, cnt);
}
int kern_alloc_tids(struct tid_rdma_flow *flow) { return upstream_kern_alloc_tids(flow); }
void kern_program_rcv_group(struct tid_rdma_flow *flow, int grp_num, u32 *pset_idx) {
  upstream_kern_program_rcv_group(flow, grp_num, pset_idx);
}
void kern_unprogram_rcv_group(struct tid_rdma_flow *flow, int grp_num) {
  upstream_kern_unprogram_rcv_group(flow, grp_num);
}
void kern_program_rcvarray(struct tid_rdma_flow *flow) { upstream_kern_program_rcvarray(flow); }
int hfi1_kern_exp_rcv_setup(struct tid_rdma_request *req, struct rvt_sge_state *ss, bool *last) {
  return upstream_hfi1_kern_exp_rcv_setup(req, ss, last);
}
void hfi1_tid_rdma_reset_flow(struct tid_rdma_flow *flow) {
  upstream_hfi1_tid_rdma_reset_flow(flow);
}
int hfi1_kern_exp_rcv_clear(struct tid_rdma_request *req) {
  return upstream_hfi1_kern_exp_rcv_clear(req);
}
void hfi1_kern_exp_rcv_clear_all(struct tid_rdma_request *req) {
  upstream_hfi1_kern_exp_rcv_clear_all(req);
}
int hfi1_kern_exp_rcv_alloc_flows(struct tid_rdma_request *req, gfp_t gfp) {
  return upstream_hfi1_kern_exp_rcv_alloc_flows(req, gfp);
}
void hfi1_kern_exp_rcv_free_flows(struct tid_rdma_request *req) {
  upstream_hfi1_kern_exp_rcv_free_flows(req);
}
void __trdma_clean_swqe(struct rvt_qp *qp, struct rvt_swqe *wqe) {
  upstream___trdma_clean_swqe(qp, wqe);
}

// The WRITE responder's allocator (core/exp_rcv.h).
u32 hfi1_compute_tid_rdma_flow_wt(struct rvt_qp *qp) {
  return upstream_hfi1_compute_tid_rdma_flow_wt(qp);
}
u32 hfi1_compute_tid_rnr_timeout(struct rvt_qp *qp, u32 to_seg) {
  return upstream_hfi1_compute_tid_rnr_timeout(qp, to_seg);
}
void hfi1_tid_write_alloc_resources(struct rvt_qp *qp, bool intr_ctx) {
  upstream_hfi1_tid_write_alloc_resources(qp, intr_ctx);
}

// The READ requester (core/exp_rcv.h).
u32 hfi1_build_tid_rdma_read_req(struct rvt_qp *qp, struct rvt_swqe *wqe,
                                 struct ib_other_headers *ohdr, u32 *bth1, u32 *bth2, u32 *len) {
  return upstream_hfi1_build_tid_rdma_read_req(qp, wqe, ohdr, bth1, bth2, len);
}

void hfi1_kern_init_ctxt_generations(struct hfi1_ctxtdata *rcd) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  hfi1_model_random *saved = upstream_random_source;
  upstream_random_source = &rcd->random;
  upstream_hfi1_kern_init_ctxt_generations(rcd);
  upstream_random_source = saved;
}

// hfi1 (6.1) takes the context as u8, hfi2 as u16 (profile decl lines);
// callers pass rcd->ctxt (u16) and so does this trampoline, converted to
// whichever type the driver's text declares: the same narrowing as in hfi1.
namespace {
template <typename R, typename D, typename C, typename F>
C upstream_ctxt_type(R (*)(D, C, F));
}  // namespace

u32 read_r_next_psn(hfi1_devdata *dd, u16 ctxt, u8 fidx) {
  using ctxt_t = decltype(upstream_ctxt_type(&upstream_read_r_next_psn));
  return upstream_read_r_next_psn(dd, static_cast<ctxt_t>(ctxt), fidx);
}

// ---- core/tid_rdma.h, wait queues and wakeups -----------------------------

struct rvt_qp *first_qp(struct hfi1_ctxtdata *rcd, struct tid_queue *queue) {
  return upstream_first_qp(rcd, queue);
}

bool kernel_tid_waiters(struct hfi1_ctxtdata *rcd, struct tid_queue *queue, struct rvt_qp *qp) {
  return upstream_kernel_tid_waiters(rcd, queue, qp);
}

void dequeue_tid_waiter(struct hfi1_ctxtdata *rcd, struct tid_queue *queue, struct rvt_qp *qp) {
  upstream_dequeue_tid_waiter(rcd, queue, qp);
}

void queue_qp_for_tid_wait(struct hfi1_ctxtdata *rcd, struct tid_queue *queue,
                           struct rvt_qp *qp) {
  upstream_queue_qp_for_tid_wait(rcd, queue, qp);
}

void __trigger_tid_waiter(struct rvt_qp *qp) { upstream___trigger_tid_waiter(qp); }

void tid_rdma_schedule_tid_wakeup(struct rvt_qp *qp) { upstream_tid_rdma_schedule_tid_wakeup(qp); }

void tid_rdma_trigger_resume(struct work_struct *work) { upstream_tid_rdma_trigger_resume(work); }

void _tid_rdma_flush_wait(struct rvt_qp *qp, struct tid_queue *queue) {
  upstream__tid_rdma_flush_wait(qp, queue);
}

void hfi1_tid_rdma_flush_wait(struct rvt_qp *qp) {
  lockdep_assert_held(&qp->s_lock);
  upstream_hfi1_tid_rdma_flush_wait(qp);
}

u32 position_in_queue(struct hfi1_qp_priv *qpriv, struct tid_queue *queue) {
  return upstream_position_in_queue(qpriv, queue);
}

#endif  // FLOWCHECK_UPSTREAM_TRAMPOLINES_H_
