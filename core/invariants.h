// core/invariants.h: the kernel's invariants (docs/kernel-invariants.md; F1-F6,
// W1-W6, G1-G7) over one receive context and its QPs.
//
//   flowcheck::CheckOptions options;
//   options.quiescent = true;               // all threads joined, queue drained
//   spin_lock_irqsave(&rcd->exp_lock, flags);
//   std::vector<flowcheck::InvariantViolation> v =
//       flowcheck::CheckInvariants(*rcd, qps, options);
//   spin_unlock_irqrestore(&rcd->exp_lock, flags);
//   for (const auto& x : v) if (x.severity == Severity::kViolation) ...
//
// Returns EVERY violated invariant, never aborts, never changes the model.
//
// Severity. kViolation: a rule the kernel keeps is broken, i.e. a bug (in the
// driver logic as modelled, or injected). kUpstreamDivergence: the kernel
// itself breaks the rule; these are the kernel hazards of docs/kernel-hazards.md, reported as findings
// and never fixed in the model: [R-1] (W5: a dequeue charged to the wrong
// queue), [R-7] (F2/F4: a random initial generation equal to RESERVED) and
// [R-3] (F2: a RESYNC that programs RESERVED). The model's audit
// (hfi1_flow_audit) tells such a kernel quirk apart from a real bug: a W5
// drift not explained by recorded mischarges is a kViolation.
//
// What the caller must guarantee:
//  * it holds rcd.exp_lock (compile time and run time), and NOT any QP's
//    s_lock it did not already hold legitimately (s_lock must never be taken
//    under exp_lock; the checker takes no lock);
//  * `qps` holds every QP mapped to `rcd` that is alive, and each stays alive
//    during the call;
//  * for CheckOptions::quiescent: the whole model is at rest, i.e. no other
//    thread runs flow-layer code for these QPs or a work item of theirs, and
//    every thread that did is ordered before this call (joined, parked on a
//    barrier, or the work queue drained). Only then are the s_lock-protected
//    fields read (s_flags for W2) and W3 checked exactly.
// Without `quiescent` the checker reads only what exp_lock and atomics
// protect, so it is safe from any thread at any time while holding exp_lock:
// flow_mask, flows[], the queues, the registers, each QP's flow_state,
// tid_wait, tid_enqueue (all written only under exp_lock), refcounts and work
// PENDING bits (atomic; W3 is then checked as a lower bound).
#ifndef FLOWCHECK_CORE_INVARIANTS_H_
#define FLOWCHECK_CORE_INVARIANTS_H_

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/types/span.h"
#include "common/check_id.h"
#include "core/hfi1.h"
#include "core/qp.h"
#include "core/reference.h"

namespace flowcheck {

// What CheckInvariants and CheckFlowBitmap report, one id each: docs/kernel-invariants.md's
// F1-F6 and W1-W6 names, and ARG. Only these two checkers report them; the
// stress driver's own checks and the reference properties have their own
// ids (common/check_id.h says why). docs/core.md lists this table
// (//core:check_ids_doc_test keeps the two equal).
enum class Invariant {
  kF1, kF2, kF3, kF4, kF5, kF6,
  kW1, kW2, kW3, kW4, kW5, kW6,
  kG1, kG2, kG3, kG4, kG5, kG6, kG7,
  kR7,
  kArg, kCount
};
inline constexpr CheckId<Invariant> kInvariantIds[] = {
    {Invariant::kF1, "F1",
     "flow_mask agrees with the owners: each reserved flow owned exactly once (by a QP or the "
     "harness), no free flow claimed, no bit above 31, every flow_state.index a flow or 32"},
    {Invariant::kF2, "F2",
     "an owner's generation is its flow's, is not RESERVED, and the flow's register holds the "
     "active value for it"},
    {Invariant::kF3, "F3",
     "a free flow's register holds the released value (RESERVED, header suppression off)"},
    {Invariant::kF4, "F4",
     "each release moved the flow's generation to next(old); no RESERVED generation after a "
     "release, none wider than 20 bits"},
    {Invariant::kF5, "F5", "an owner's flow_state.psn is at most 2047"},
    {Invariant::kF6, "F6",
     "a QP without a flow has psn 0 and generation RESERVED or the one a RESYNC saved"},
    {Invariant::kW1, "W1",
     "each tid_wait node is on at most one queue, once, linked both ways; no stray node, no "
     "cycle"},
    {Invariant::kW2, "W2", "a queued QP has HFI1_S_WAIT_TID_SPACE set (checked at rest only)"},
    {Invariant::kW3, "W3",
     "refcount = base + queued + trigger_work pending (a lower bound while threads run)"},
    {Invariant::kW4, "W4",
     "no QP on flow_queue owns a flow; no grant went past the head of a non-empty flow_queue"},
    {Invariant::kW5, "W5",
     "enqueue - dequeue = queue length, but for the recorded [R-1] mischarges"},
    {Invariant::kW6, "W6",
     "tid_enqueue strictly increasing along a queue (mod 2^32), never ahead of the queue's "
     "counter"},
    {Invariant::kG1, "G1",
     "each RcvArray group is on exactly one list, the one its used count names (0: "
     "tid_group_list, all: tid_full_list, else tid_used_list)"},
    {Invariant::kG2, "G2", "a group's used count equals the entries set in its map"},
    {Invariant::kG3, "G3",
     "each group list's count equals its length; the counts sum to rcv_array_groups"},
    {Invariant::kG4, "G4", "a group's map holds whole aligned pairs of entries"},
    {Invariant::kG5, "G5",
     "the entries the groups count in use are those the live segments hold (checked at rest "
     "only)"},
    {Invariant::kG6, "G6",
     "a live segment's programming consumed exactly its plan: an even npagesets, even node "
     "counts summing to it, one TID entry per pair, the entries' lengths summing to the "
     "pagesets' pages (checked at rest only)"},
    {Invariant::kG7, "G7",
     "no RcvArray entry programmed while valid, or valid while free in its group; none held by "
     "two live segments (at rest)"},
    {Invariant::kR7, "R7",
     "a live segment runs on its QP's flow: a QP with set-up slots in its READ or WRITE "
     "request owns a flow, the one every such slot carries (checked at rest only)"},
    {Invariant::kArg, "ARG", "a QP of another context was passed to the checker (a caller error)"},
};
static_assert(WellFormedIdTable(kInvariantIds), "one row per Invariant, distinct token ids");
// The pure fuzz target reports the reference properties next to these.
static_assert(DisjointIds(kInvariantIds, reference::kPropertyIds), "an id names one check");

enum class Severity {
  kViolation,           // the kernel keeps this rule: a bug
  kUpstreamDivergence,  // the kernel breaks it too: a known hazard ([R-n])
};

const char* SeverityName(Severity s);  // "violation", "upstream divergence"

struct InvariantViolation {
  std::string id;      // a kInvariantIds id: "F1".."F6", "W1".."W6", "G1".."G7", "ARG"
  Severity severity;
  std::string detail;  // names the flows and QPs involved
  // "F1 violation: flow 3 is owned by qp 1 and qp 2"
  std::string ToString() const;
};

struct CheckOptions {
  // The model is at rest (see the contract above).
  bool quiescent = false;
  // Flows reserved by the harness itself through kern_reserve_flow (no QP
  // owns them); F1 counts them as owned, F2/F3 skip their registers.
  unsigned long harness_reserved_flows = 0;
  // References a QP holds outside the flow layer (the QP table's: 1). W3
  // expects refcount == base_refs + [queued] + [trigger_work pending] at rest.
  int base_refs = 1;
};

// All of F1-F6, W1-W6 and the G rules. See the contract above.
std::vector<InvariantViolation> CheckInvariants(const hfi1_ctxtdata& rcd,
                                                absl::Span<rvt_qp* const> qps,
                                                const CheckOptions& options = {})
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd.exp_lock);

// What CheckInvariants(rcd, qps, options) reports, reduced to which
// severities occur: the same code runs the same checks, but formats nothing
// and allocates nothing (for up to 16 QPs). For callers that check after
// every step and need the list only when something is found (the fuzz
// executor). Same contract as CheckInvariants.
struct InvariantVerdict {
  bool violation = false;            // some kViolation (or ARG) report
  bool upstream_divergence = false;  // some kUpstreamDivergence report
  bool any() const { return violation || upstream_divergence; }
  bool operator==(const InvariantVerdict& o) const {
    return violation == o.violation && upstream_divergence == o.upstream_divergence;
  }
};
InvariantVerdict CheckInvariantsVerdict(const hfi1_ctxtdata& rcd,
                                        absl::Span<rvt_qp* const> qps,
                                        const CheckOptions& options = {})
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd.exp_lock);
// The verdict of a list CheckInvariants returned.
InvariantVerdict VerdictOf(const std::vector<InvariantViolation>& v);

// The cheap check for after every operation: F1 only (bits above 31 clear;
// each reserved flow owned by exactly one QP, or by the harness; no QP claims
// a free flow). O(32 + qps), reads only exp_lock-protected state.
std::vector<InvariantViolation> CheckFlowBitmap(const hfi1_ctxtdata& rcd,
                                                absl::Span<rvt_qp* const> qps,
                                                unsigned long harness_reserved_flows = 0)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd.exp_lock);

// Helpers for callers.
bool HasSeverity(const std::vector<InvariantViolation>& v, Severity s);
std::vector<InvariantViolation> OnlySeverity(const std::vector<InvariantViolation>& v,
                                             Severity s);
std::string FormatViolations(const std::vector<InvariantViolation>& v);

}  // namespace flowcheck

#endif  // FLOWCHECK_CORE_INVARIANTS_H_
