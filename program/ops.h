// program/ops.h: internal to the engine. The operations a stress thread
// performs, each through core/callers.h with an OpCheck (op_check.h) that
// checks it under the caller's locks, and each counted.
//
// QP ops (qp_ops.cc) run on the op thread that owns the QP and move its
// QpState; bare ops (bare_ops.cc) run on any harness thread and reserve or
// release flows no QP owns, recorded in the context's harness table.
#ifndef FLOWCHECK_PROGRAM_OPS_H_
#define FLOWCHECK_PROGRAM_OPS_H_

#include <cstddef>

#include "program/op_list.h"
#include "program/run_state.h"

namespace flowcheck {
namespace program {

// One op on QP slot `s`, picked with the thread's generator among the ops
// that fit what the thread believes `s` is (its QpState); weights in
// qp_ops.cc.
void QpOp(Run* run, Participant* p, QpSlot* s);

// The final drain's ops on p's own QPs, the same for the free-running
// run (thread_loop.cc, each thread its own) and a controlled execution's
// end (controlled.cc, the controller for every participant):
// DrainRelease first releases p's bare flows and grants each rarr wait
// (behind another waiter the grant is refused and the QP stays queued);
// DrainSlots, once per drain round, retries such a grant, polls a waiting
// QP and releases an owned flow (its segments first).
void DrainRelease(Participant* p);
void DrainSlots(Participant* p);

// The ops the final drain also needs.
void OpPoll(Participant* p, QpSlot* s);        // did the send engine get the flow?
void OpRelease(Participant* p, QpSlot* s);     // caller_clear_hw_flow
void OpRarrGrant(Participant* p, QpSlot* s);   // caller_rarr_grant

// A bare reservation (caller_reserve_flow) when the thread holds fewer than
// `limit` bare flows (and 75% of the time), else a bare release of one of
// them (caller_release_flow, then a wakeup of flow_queue's head).
void BareOp(Run* run, Participant* p, int limit);

// Releases p->bare[i] (see BareOp).
void BareRelease(Participant* p, size_t i);

// A bare reservation on `ctx` preferring flow `last` (see BareOp); with
// `state_check` false, its result is judged but not the whole context
// (OpCheck::set_state_check).
void BareReserve(Participant* p, ContextState* ctx, int last, bool state_check = true);

// A RESYNC for run->all_qps[j] (hfi1_rc_rcv_tid_rdma_resync): for the
// generation the peer would send next if `next`, else the current one.
void ResyncQp(Run* run, Participant* p, uint32_t j, bool next);

// The runners of the listed ops, one per row of op_table.h's table, named
// Run<Kind>: each runs the op with the listed op's arguments on `s` (the
// slot A names, for a QP op; nullptr for the others) and returns false if it
// skipped it after all (a condition only the run knows, as "the segment that
// waited" for a retry). A QP op's runner is called only in a state of its
// row's `fits`.
#define FLOWCHECK_STRESS_DECLARE_RUNNER(kind, ...) \
  bool Run##kind(Run* run, Participant* p, QpSlot* s, const ListedOp& op);
FLOWCHECK_LISTED_OPS(FLOWCHECK_STRESS_DECLARE_RUNNER)
#undef FLOWCHECK_STRESS_DECLARE_RUNNER

// A listed op for participant p, through its row and runner: a QP op on the
// slot A names (mod p's slots; none: skipped) only if it fits what p
// believes the slot is (QpSlot::state), the others always. Whether it ran.
bool RunListedOp(Run* run, Participant* p, const ListedOp& op);

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_OPS_H_
