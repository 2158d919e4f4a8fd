// upstream/diff/state_diff.h: what the differential target compares between
// the kernel's world and core's model's world, and the one line per
// difference it reports.
//
// A WorldState is read from one world at rest: the oracle's StateSnapshot
// (core/oracle/snapshot.h: flow_mask, every flow's generation and flow-table
// register, each QP's flow_state, HFI1_S_WAIT_TID_SPACE, queue membership,
// tid_enqueue, references, pending work, resync and request-model counters,
// both queues' members in order and counters, the pending work in order,
// n_tidwait), plus what the oracle does not compare: each QP's whole s_flags
// word and the audit facts the flow layer records (rcd->audit: grants, each
// flow's clear history, mischarged removals).
#ifndef FLOWCHECK_UPSTREAM_DIFF_STATE_DIFF_H_
#define FLOWCHECK_UPSTREAM_DIFF_STATE_DIFF_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "core/hfi1.h"
#include "core/oracle/snapshot.h"
#include "core/qp.h"
#include "core/workqueue.h"

namespace flowcheck {
namespace diff {

struct WorldState {
  bool fits = false;  // the snapshot fit (oracle::SnapshotModel)
  oracle::StateSnapshot snapshot;
  uint32_t s_flags[oracle::kSnapshotMaxQps];
  hfi1_flow_audit audit;
};

// Reads `rcd`'s world. Takes rcd->exp_lock itself (the caller holds no lock);
// the world must be at rest (no work item running, no other thread in it).
void ReadWorld(hfi1_ctxtdata* rcd, absl::Span<rvt_qp* const> qps, const workqueue_struct& wq,
               WorldState* out);

// Whether DescribeDifferences would append nothing; cheap (no formatting),
// for the check after every fuzz step.
bool SameWorld(const WorldState& a, const WorldState& b);

// Appends one line per difference, "differential: <field>: kernel X, core Y",
// `kernel` being the kernel's world and `core` core's model's.
void DescribeDifferences(const WorldState& kernel, const WorldState& core,
                         std::vector<std::string>* out);

}  // namespace diff
}  // namespace flowcheck

#endif  // FLOWCHECK_UPSTREAM_DIFF_STATE_DIFF_H_
