// core/caller_checks.h: what a concurrent harness asserts of the model's
// callers and at rest, and when: the stress driver and the concurrent fuzz
// target (fuzz/executor/sched_*) both run these, so they live with the model
// (they read only its state) and neither harness depends on the other.
//
// The invariants themselves are in core/invariants.h (F1-F6, W1-W6);
// this file adds only what is specific to a multithreaded run: who owns the
// flows the harness reserved without a QP, what one operation promised to
// its caller, and the liveness facts that only hold at rest.
//
//   after every operation, under the context's exp_lock:
//     CheckAfterOp         core's F and W checks (non-quiescent contract) +
//                          popcount(flow_mask) == flows owned (QPs + harness)
//     CheckBareReserve     kern_reserve_flow's result: never a flow someone
//                          owns; -EAGAIN only when all 32 bits are set
//     CheckSetupResult     hfi1_kern_setup_hw_flow's promise to its QP
//   at quiescent points (every thread parked, work queue idle), under exp_lock:
//     CheckAtRest          core's full CheckInvariants (quiescent) +
//                          CheckNoLostWakeup
//   at the end, everyone having released everything:
//     CheckFinal           CheckAtRest + empty mask and queues, references
//                          back to the QP table's one, no work pending
//
// Every function returns findings, never aborts: the driver fails the run on
// the first finding that is not an upstream divergence (the kernel's own
// known hazards, core's Severity::kUpstreamDivergence), which are counted.
#ifndef FLOWCHECK_CORE_CALLER_CHECKS_H_
#define FLOWCHECK_CORE_CALLER_CHECKS_H_

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "common/check_id.h"
#include "core/hfi1.h"
#include "core/hfi1_constants.h"
#include "core/invariants.h"
#include "core/qp.h"

namespace flowcheck {

// The stress driver's own checks, one id each (common/check_id.h's pattern).
// Its findings carry these or, forwarded unchanged, core's kInvariantIds;
// the two sets are disjoint, so an id names one checker. docs/stress.md
// lists this table (//core:caller_checks_test keeps the two equal).
enum class StressCheck {
  kMaskCount,
  kReserve,
  kEagain,
  kSetup,
  kUse,
  kClear,
  kQueue,
  kNoLostWakeup,
  kOwnership,
  kFinal,
  kOracle,
  kCount,
};
inline constexpr CheckId<StressCheck> kStressCheckIds[] = {
    {StressCheck::kMaskCount, "mask-count",
     "after an op, popcount(flow_mask) = flows owned by QPs + flows the harness threads hold"},
    {StressCheck::kReserve, "reserve",
     "a bare kern_reserve_flow returned a flow (0..31) that nobody owned and whose bit it set, "
     "or -EAGAIN"},
    {StressCheck::kEagain, "EAGAIN",
     "a bare kern_reserve_flow returned -EAGAIN only while all 32 flows were reserved"},
    {StressCheck::kSetup, "setup",
     "hfi1_kern_setup_hw_flow's promise: 0 = owns a reserved flow, off flow_queue; -EAGAIN = no "
     "flow, on flow_queue, flagged; a QP granted its flow no longer wants one"},
    {StressCheck::kUse, "use",
     "a flow's owner holding its s_lock sees its flow index unchanged"},
    {StressCheck::kClear, "clear", "hfi1_kern_clear_hw_flow leaves the QP owning no flow"},
    {StressCheck::kQueue, "queue",
     "after an op that queues or unqueues a QP (rarr wait, flush), the QP is on the queue the op "
     "promises (a rarr grant may be refused by the kernel's FIFO gate and queue the QP instead: "
     "its result sets the thread's view, which `ownership` checks at quiescent points)"},
    {StressCheck::kNoLostWakeup, "no-lost-wakeup",
     "no wakeup is lost: at rest a waiter on flow_queue means all 32 flows are reserved (or its "
     "wakeup is pending), and every wait that began ends, granted or given up"},
    {StressCheck::kOwnership, "ownership",
     "each thread's idea of its QPs and bare flows agrees with the model and the harness table"},
    {StressCheck::kFinal, "final",
     "at the end: flow_mask and both queues empty, no harness flow, no work pending, every QP "
     "idle with only the QP table's reference, and none left after teardown"},
    {StressCheck::kOracle, "oracle",
     "in a controlled execution on one context, while the order of the ops' effects is known, "
     "each observed call returns what the reference model returns and leaves the same state "
     "(reported as `[oracle]`, as by the fuzz targets)"},
};
static_assert(WellFormedIdTable(kStressCheckIds), "one row per StressCheck, distinct token ids");
static_assert(DisjointIds(kStressCheckIds, kInvariantIds), "an id names one checker");

// The ids, as the findings carry them.
inline constexpr const char* kIdMaskCount = IdOf(kStressCheckIds, StressCheck::kMaskCount);
inline constexpr const char* kIdReserve = IdOf(kStressCheckIds, StressCheck::kReserve);
inline constexpr const char* kIdEagain = IdOf(kStressCheckIds, StressCheck::kEagain);
inline constexpr const char* kIdSetup = IdOf(kStressCheckIds, StressCheck::kSetup);
inline constexpr const char* kIdUse = IdOf(kStressCheckIds, StressCheck::kUse);
inline constexpr const char* kIdClear = IdOf(kStressCheckIds, StressCheck::kClear);
inline constexpr const char* kIdQueue = IdOf(kStressCheckIds, StressCheck::kQueue);
inline constexpr const char* kIdNoLostWakeup = IdOf(kStressCheckIds, StressCheck::kNoLostWakeup);
inline constexpr const char* kIdOwnership = IdOf(kStressCheckIds, StressCheck::kOwnership);
inline constexpr const char* kIdFinal = IdOf(kStressCheckIds, StressCheck::kFinal);
inline constexpr const char* kIdOracle = IdOf(kStressCheckIds, StressCheck::kOracle);

struct Finding {
  std::string id;      // a kStressCheckIds id, or core's (kInvariantIds)
  std::string detail;  // names the flows, QPs and threads involved
  bool divergence = false;  // a known upstream hazard: counted, not a failure
};

// The first finding that is not a divergence, or nullptr.
const Finding* FirstFailure(const std::vector<Finding>& findings);

// One receive context as the stress run shares it.
struct ContextState {
  explicit ContextState(hfi1_ctxtdata* r) : rcd(r) {}
  hfi1_ctxtdata* const rcd;
  // Every QP mapped to rcd. Filled before the run's threads start, then
  // read-only (the QPs live until after the run).
  std::vector<rvt_qp*> qps;
  // Flows the harness reserved with kern_reserve_flow directly (no QP owns
  // them): bit i set = flow i, held by harness thread bare_owner[i]. Updated
  // in the same exp_lock critical section as the reservation or release.
  unsigned long bare_mask ABSL_GUARDED_BY(rcd->exp_lock) = 0;
  int bare_owner[RXE_NUM_TID_FLOWS] ABSL_GUARDED_BY(rcd->exp_lock) = {};
};

// Core's F1-F6 and W1-W6 in their non-quiescent form (safe while other
// threads run), the harness's flows counted as owned, plus
// popcount(flow_mask) == QP-owned flows + harness-owned flows.
std::vector<Finding> CheckAfterOp(const ContextState& ctx)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx.rcd->exp_lock);

// Judges `ret = kern_reserve_flow(rcd, last)` made by harness thread
// `thread` in the current exp_lock critical section, BEFORE the harness
// records the flow: a returned flow must be owned by nobody (no QP's
// flow_state.index, no harness claim); -EAGAIN only if flow_mask's 32 flow
// bits are all set (kern_reserve_flow leaves the mask unchanged on failure,
// so this is the mask at that moment).
std::vector<Finding> CheckBareReserve(const ContextState& ctx, int last, int ret, int thread)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx.rcd->exp_lock);

// Judges `ret = hfi1_kern_setup_hw_flow(rcd, qp)`, called under qp->s_lock
// which is still held (so nobody else can have changed qp's flow or queue
// membership since): 0 => qp owns a reserved flow and waits on no queue;
// -EAGAIN => qp owns none, is on flow_queue and is flagged
// HFI1_S_WAIT_TID_SPACE.
std::vector<Finding> CheckSetupResult(const ContextState& ctx, const rvt_qp* qp, int ret)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx.rcd->exp_lock, qp->s_lock);

// Where qp's tid_wait node is: 'f' flow_queue, 'r' rarr_queue, 0 neither.
char QueueOf(const ContextState& ctx, const rvt_qp* qp)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx.rcd->exp_lock);

// No lost wakeup: a QP waiting on flow_queue while a flow is free is only
// legitimate while a wakeup for the queue's head is on its way. At rest
// (every harness thread parked, work queue idle, so nothing is on its way)
// flow_queue non-empty must mean all 32 flows are reserved.
std::vector<Finding> CheckNoLostWakeup(const ContextState& ctx)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx.rcd->exp_lock);

// At rest: core's CheckInvariants with quiescent = true (s_flags, exact
// reference counts) + CheckNoLostWakeup. The caller guarantees rest (see
// core/invariants.h: every other thread ordered before this call).
std::vector<Finding> CheckAtRest(const ContextState& ctx)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx.rcd->exp_lock);

// At the end, after every thread released everything and the work queue is
// idle: CheckAtRest + flow_mask == 0, no harness flow, both queues empty,
// each QP back to the one reference of the QP table, no work pending.
std::vector<Finding> CheckFinal(const ContextState& ctx)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx.rcd->exp_lock);

}  // namespace flowcheck

#endif  // FLOWCHECK_CORE_CALLER_CHECKS_H_
