// core/oracle/snapshot.h: the state CompareWithModel (compare.h) compares,
// flattened into one plain struct, so that "do model and oracle agree?"
// after every fuzz step is two fills and a word-wise comparison, with no
// allocation and no strings. CompareWithModel stays the one description of a difference:
// Lockstep::Step calls it only when the snapshots differ.
//
//   StateSnapshot m, o;
//   if (SnapshotModel(rcd, qps, wq, &m) && SnapshotOracle(oracle, &o) &&
//       SameState(m, o)) { /* CompareWithModel would return nothing */ }
//
// Contract: SameState(model, oracle) <=> CompareWithModel(...) is empty,
// whenever both Snapshot* calls return true. Each field below is one thing
// CompareWithModel compares, read the same way (the same bounded list
// walks, the same casts); snapshot_test checks the equivalence on random
// runs and on a corruption of every field. A snapshot that does not fit
// (more than kSnapshotMaxQps QPs, longer queues or work lists) returns false
// and the caller falls back to CompareWithModel.
//
// Add a field here whenever CompareWithModel compares something new.
#ifndef FLOWCHECK_CORE_ORACLE_SNAPSHOT_H_
#define FLOWCHECK_CORE_ORACLE_SNAPSHOT_H_

#include <cstdint>
#include <cstddef>
#include <type_traits>

#include "absl/base/thread_annotations.h"
#include "absl/types/span.h"
#include "core/hfi1.h"
#include "core/oracle/flow_oracle.h"
#include "core/qp.h"
#include "core/workqueue.h"

namespace flowcheck {
namespace oracle {

inline constexpr int kSnapshotMaxQps = 16;
// Each QP has two work items, each pending at most once (PENDING bit).
inline constexpr int kSnapshotMaxWork = 2 * kSnapshotMaxQps + 2;

// Every member is a 32- or 64-bit integer and the struct has no padding
// (asserted below). Only the used slots are written and compared: qp[0,
// num_qps), queue[k].members[0, length), work[0, num_work); the rest keeps
// whatever an earlier fill left (the fills clear nothing: zeroing 1.7 KB
// twice per fuzz step cost more than the comparison).
struct StateSnapshot {
  // The fixed part, compared as whole words: the flows and the counts.
  uint64_t flow_mask;           // all 64 bits (the oracle has no bits above 31)
  uint64_t n_tidwait;
  uint64_t reg[kNumFlows];      // the flow table registers
  uint32_t generation[kNumFlows];
  uint32_t num_qps;
  uint32_t num_work;            // pending work items, oldest first in work[]
  struct Qp {
    uint32_t flow, last, generation, psn;  // flow_state (index as an int)
    uint32_t waiting;                      // HFI1_S_WAIT_TID_SPACE
    uint32_t on;                           // Queue: the list tid_wait is on
    uint32_t tid_enqueue;
    uint32_t refs;                         // refcount, as an int
    uint32_t trigger_pending, send_pending, resync;
    uint32_t wants_flow, send_engine_runs, flows_granted;  // request model
  } qp[kSnapshotMaxQps];
  struct Queue {
    uint32_t enqueue, dequeue;
    uint32_t length;                        // entries used in members[]
    int32_t members[kSnapshotMaxQps + 1];   // QP indices, head first; -1: unknown
  } queue[2];                               // flow_queue, rarr_queue
  struct Work {
    int32_t qp;     // -1: an item of no listed QP
    uint32_t kind;  // WorkKind
  } work[kSnapshotMaxWork];
};
static_assert(std::has_unique_object_representations_v<StateSnapshot>,
              "StateSnapshot must have no padding: SameState compares words");

namespace snapshot_internal {
// Word-wise equality of n words. Not std::memcmp: ASan intercepts memcmp (a
// shadow-memory check of both buffers per call) even from uninstrumented
// code, which cost more than the comparison itself. Accumulated without an
// early exit, the loop vectorises and is not turned back into a memcmp call.
template <typename Word>
inline bool SameWords(const void* a, const void* b, size_t n) {
  using W = Word __attribute__((may_alias));
  const W* wa = static_cast<const W*>(a);
  const W* wb = static_cast<const W*>(b);
  Word differ = 0;
  for (size_t i = 0; i < n; ++i) differ |= wa[i] ^ wb[i];
  return differ == 0;
}
}  // namespace snapshot_internal

// Equality of the used slots (see StateSnapshot).
inline bool SameState(const StateSnapshot& a, const StateSnapshot& b) {
  using snapshot_internal::SameWords;
  constexpr size_t kFixed = offsetof(StateSnapshot, qp);
  static_assert(kFixed % sizeof(uint64_t) == 0, "the fixed part is whole words");
  if (!SameWords<uint64_t>(&a, &b, kFixed / sizeof(uint64_t))) return false;
  // Equal counts from here on (they are in the fixed part).
  if (a.num_qps > static_cast<uint32_t>(kSnapshotMaxQps) ||
      a.num_work > static_cast<uint32_t>(kSnapshotMaxWork)) {
    return false;  // not a filled snapshot
  }
  if (!SameWords<uint32_t>(a.qp, b.qp, a.num_qps * sizeof(StateSnapshot::Qp) / 4)) return false;
  for (int k = 0; k < 2; ++k) {
    const StateSnapshot::Queue& qa = a.queue[k];
    const StateSnapshot::Queue& qb = b.queue[k];
    if (qa.enqueue != qb.enqueue || qa.dequeue != qb.dequeue || qa.length != qb.length ||
        qa.length > static_cast<uint32_t>(kSnapshotMaxQps + 1) ||
        !SameWords<uint32_t>(qa.members, qb.members, qa.length)) {
      return false;
    }
  }
  return SameWords<uint64_t>(a.work, b.work, a.num_work);
}

// The model's side. Requires exp_lock and the model at rest (compare.h's
// contract). Returns false if it does not fit (see above).
bool SnapshotModel(const hfi1_ctxtdata& rcd, absl::Span<rvt_qp* const> qps,
                   const workqueue_struct& wq, StateSnapshot* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd.exp_lock);

// The oracle's side. Returns false if it does not fit.
bool SnapshotOracle(const FlowOracle& o, StateSnapshot* out);

// Sets `o` (of s.num_qps QPs) to the state a model snapshot describes, so
// that a follower that lost the order of effects (program/oracle_follow.h)
// can take up the model's state at a moment when no effect is in flight and
// go on comparing from there. Returns false, leaving `o` as it was, if the
// snapshot holds what the oracle cannot (another QP count, a list member or
// work item of no listed QP, a reserved flow bit above 31). The caller
// checks the result with SnapshotOracle + SameState.
bool AdoptSnapshot(const StateSnapshot& s, FlowOracle* o);

}  // namespace oracle
}  // namespace flowcheck

#endif  // FLOWCHECK_CORE_ORACLE_SNAPSHOT_H_
