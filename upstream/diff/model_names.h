// upstream/diff/model_names.h: core's model as a second instance in a process
// whose //core:core is the kernel's text (--config=upstream).
//
// Force-included (-include) first in every file of //upstream/diff:model_instance,
// which compiles core's own flow layer (tid_rdma_flow.cc, tid_rdma_wait.cc)
// and the platform files that call it by name (callers.cc, callers_read.cc,
// qp.cc, hfi1.cc, tid_rdma_resync.cc) a second time. Every function those files define gets
// the prefix diffmodel_, in its declaration (core's headers), its definition
// and every call, so the copy calls only itself and links beside //core:core,
// whose unprefixed names are the kernel's trampolines. The structures are not
// renamed: both instances share core's types, so one snapshot reads either
// world. Shared on purpose (defined once, in //core:core): the work queue,
// the audit hooks (core/model_audit.h), lockcheck.
//
// Completeness: a function of those files left out here is defined twice, and
// the statically linked targets (//fuzz:model_vs_upstream_test,
// //upstream/diff:diff_test, the _fuzzer binary) fail to link. (A dynamic
// link would silently bind it to one instance.)
#ifndef FLOWCHECK_UPSTREAM_DIFF_MODEL_NAMES_H_
#define FLOWCHECK_UPSTREAM_DIFF_MODEL_NAMES_H_

// core/tid_rdma.h
#define mask_generation diffmodel_mask_generation
#define kern_flow_generation_next diffmodel_kern_flow_generation_next
#define kern_reserve_flow diffmodel_kern_reserve_flow
#define kern_set_hw_flow diffmodel_kern_set_hw_flow
#define kern_setup_hw_flow diffmodel_kern_setup_hw_flow
#define kern_clear_hw_flow diffmodel_kern_clear_hw_flow
#define hfi1_kern_setup_hw_flow diffmodel_hfi1_kern_setup_hw_flow
#define hfi1_kern_clear_hw_flow diffmodel_hfi1_kern_clear_hw_flow
#define hfi1_kern_init_ctxt_generations diffmodel_hfi1_kern_init_ctxt_generations
#define read_r_next_psn diffmodel_read_r_next_psn
#define tid_rdma_rcv_resync_flow diffmodel_tid_rdma_rcv_resync_flow
#define first_qp diffmodel_first_qp
#define kernel_tid_waiters diffmodel_kernel_tid_waiters
#define dequeue_tid_waiter diffmodel_dequeue_tid_waiter
#define queue_qp_for_tid_wait diffmodel_queue_qp_for_tid_wait
#define __trigger_tid_waiter diffmodel___trigger_tid_waiter
#define tid_rdma_schedule_tid_wakeup diffmodel_tid_rdma_schedule_tid_wakeup
#define tid_rdma_trigger_resume diffmodel_tid_rdma_trigger_resume
#define _tid_rdma_flush_wait diffmodel__tid_rdma_flush_wait
#define hfi1_tid_rdma_flush_wait diffmodel_hfi1_tid_rdma_flush_wait
#define position_in_queue diffmodel_position_in_queue

// core/qp.h
#define rvt_get_qp diffmodel_rvt_get_qp
#define rvt_put_qp diffmodel_rvt_put_qp
#define qp_to_rcd diffmodel_qp_to_rcd
#define hfi1_qp_priv_init diffmodel_hfi1_qp_priv_init
#define hfi1_model_create_qp diffmodel_hfi1_model_create_qp
#define hfi1_model_teardown_qp diffmodel_hfi1_model_teardown_qp
#define hfi1_model_free_qp diffmodel_hfi1_model_free_qp
#define flush_qp_waiters diffmodel_flush_qp_waiters
#define stop_send_queue diffmodel_stop_send_queue
#define hfi1_send_ok diffmodel_hfi1_send_ok
#define hfi1_schedule_send diffmodel_hfi1_schedule_send
#define hfi1_do_send diffmodel_hfi1_do_send
#define _hfi1_do_send diffmodel__hfi1_do_send
#define hfi1_model_send_engine diffmodel_hfi1_model_send_engine
// core/exp_rcv.h, the WRITE responder's platform (the allocator itself,
// hfi1_tid_write_alloc_resources, is shared like the RcvArray side below)
#define rvt_rnr_tbl_to_usec diffmodel_rvt_rnr_tbl_to_usec
#define active_egress_rate diffmodel_active_egress_rate
#define tid_rdma_trigger_ack diffmodel_tid_rdma_trigger_ack
#define rc_defered_ack diffmodel_rc_defered_ack

// core/hfi1.h
#define get_random_u32 diffmodel_get_random_u32
#define hfi1_model_alloc_devdata diffmodel_hfi1_model_alloc_devdata
#define hfi1_create_ctxtdata diffmodel_hfi1_create_ctxtdata
#define write_uctxt_csr diffmodel_write_uctxt_csr
#define read_uctxt_csr diffmodel_read_uctxt_csr

// core/callers.h
#define CallerOpName diffmodel_CallerOpName
#define caller_setup_hw_flow diffmodel_caller_setup_hw_flow
#define caller_clear_hw_flow diffmodel_caller_clear_hw_flow
#define caller_flush_wait diffmodel_caller_flush_wait
#define caller_give_up_flow_wait diffmodel_caller_give_up_flow_wait
#define caller_rarr_wait diffmodel_caller_rarr_wait
#define caller_rarr_grant diffmodel_caller_rarr_grant
#define caller_rarr_release diffmodel_caller_rarr_release
#define caller_set_wants_flow diffmodel_caller_set_wants_flow
#define caller_resync diffmodel_caller_resync
#define caller_clear_resync diffmodel_caller_clear_resync
#define caller_reserve_flow diffmodel_caller_reserve_flow
#define caller_release_flow diffmodel_caller_release_flow
// The segment callers (the RcvArray side below them, core/exp_rcv.h and
// tid_rdma_rcvarray.cc, is one instance shared by both worlds: the
// differential target drives no segment).
#define caller_read_req_segment diffmodel_caller_read_req_segment
#define caller_read_resp_segment diffmodel_caller_read_resp_segment
#define caller_read_req_clear_all diffmodel_caller_read_req_clear_all
#define read_req_pending_segments diffmodel_read_req_pending_segments
#define caller_read_req_flush_complete diffmodel_caller_read_req_flush_complete
#define caller_write_alloc_segment diffmodel_caller_write_alloc_segment
#define caller_write_data_segment diffmodel_caller_write_data_segment
#define caller_write_alloc_idle diffmodel_caller_write_alloc_idle
#define caller_write_req_clear_all diffmodel_caller_write_req_clear_all
#define write_req_pending_segments diffmodel_write_req_pending_segments
#define tid_request_has_waiting_segment diffmodel_tid_request_has_waiting_segment
// core/callers_internal.h: its namespace, so every function in it is renamed.
#define callers_internal diffmodel_callers_internal

#endif  // FLOWCHECK_UPSTREAM_DIFF_MODEL_NAMES_H_
