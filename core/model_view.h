// core/model_view.h: how the checkers read the model's state - the one
// place for the reads the analysis cannot verify and for the queue walks
// that must not trust a possibly corrupted list. Used by CheckInvariants,
// the oracle's comparison and snapshot (core/oracle) and the stress checks.
//
//   QpNodes nodes(qps);
//   WaitQueue on[16];
//   QueueOfEach(*rcd, nodes, on);                 // exp_lock held
//   WalkQueue(rcd->flow_queue, nodes.size() + 1, [&](const list_head* n) {
//     return nodes.IndexOf(n) >= 0;               // false: stop here
//   });
//
// Nothing here writes to the model or takes a lock.
#ifndef FLOWCHECK_CORE_MODEL_VIEW_H_
#define FLOWCHECK_CORE_MODEL_VIEW_H_

#include <cstddef>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "core/hfi1.h"
#include "core/hfi1_constants.h"
#include "core/list.h"
#include "core/qp.h"

namespace flowcheck {

// Whether HFI1_S_WAIT_TID_SPACE is set in qp->s_flags. s_flags is guarded
// by qp->s_lock, which the analysis cannot tie to a `const rvt_qp*`, so the
// caller guarantees one of: it holds qp->s_lock, or the model is at rest
// (no other thread runs flow-layer code or a work item of qp, and every one
// that did is ordered before this call: joined, parked, queue drained).
inline bool WaitTidSpaceFlag(const rvt_qp* qp) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  return (qp->s_flags & HFI1_S_WAIT_TID_SPACE) != 0;
}

// Visits the nodes of `q` head first, at most `max_nodes` of them, stopping
// early when visit(node) returns false. Returns how many were visited. The
// bound is what keeps a corrupted (cyclic) list from hanging the reader; a
// walk that may meet one passes a finite bound. The caller holds the
// exp_lock of the context `q` belongs to.
template <typename Visit>
size_t WalkQueue(const tid_queue& q, size_t max_nodes, Visit visit) {
  const list_head* head = &q.queue_head;
  size_t n = 0;
  for (const list_head* p = head->next; p != head && n < max_nodes; p = p->next) {
    ++n;
    if (!visit(p)) break;
  }
  return n;
}

// The bound of walks that look for membership rather than a whole queue:
// far more nodes than any context has QPs.
inline constexpr size_t kMaxQueueWalk = 4096;

// Whether `node` is among the first kMaxQueueWalk nodes of `q`. Caller holds
// the context's exp_lock.
inline bool OnQueue(const tid_queue& q, const list_head* node) {
  bool found = false;
  WalkQueue(q, kMaxQueueWalk, [&](const list_head* p) {
    found = p == node;
    return !found;
  });
  return found;
}

// Maps queue nodes back to QPs: the tid_wait node of each QP in `qps`, read
// once. No allocation for up to 16 QPs (the checkers run after every fuzz
// step). `qps` must outlive it.
class QpNodes {
 public:
  explicit QpNodes(absl::Span<rvt_qp* const> qps) : qps_(qps) {
    for (rvt_qp* qp : qps) nodes_.push_back(&qp->priv->tid_wait);
  }
  size_t size() const { return nodes_.size(); }
  absl::Span<rvt_qp* const> qps() const { return qps_; }
  // The index in `qps` of the QP whose tid_wait is `node`, or -1.
  int IndexOf(const list_head* node) const {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i] == node) return static_cast<int>(i);
    }
    return -1;
  }

 private:
  absl::Span<rvt_qp* const> qps_;
  absl::InlinedVector<const list_head*, 16> nodes_;
};

// The members of `q` as indices in nodes.qps(), head first: add(i) for
// each node, i = -1 for a node of no listed QP, after which the walk stops;
// at most nodes.size() + 1 of them (one more than a list of distinct listed
// QPs can hold, so a cycle shows as an overlong list). Caller holds the
// context's exp_lock.
template <typename Add>
void QueueMembers(const tid_queue& q, const QpNodes& nodes, Add add) {
  WalkQueue(q, nodes.size() + 1, [&](const list_head* p) {
    const int i = nodes.IndexOf(p);
    add(i);
    return i >= 0;
  });
}

// Which list a QP's tid_wait is on.
enum class WaitQueue : uint32_t { kNone, kFlow, kRarr };

// on[i] = the queue nodes.qps()[i] is on, for i < nodes.size(): flow_queue
// if it is on both; each queue walked at most kMaxQueueWalk nodes, nodes of
// no listed QP skipped.
inline void QueueOfEach(const hfi1_ctxtdata& rcd, const QpNodes& nodes, WaitQueue* on)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd.exp_lock) {
  for (size_t i = 0; i < nodes.size(); ++i) on[i] = WaitQueue::kNone;
  const tid_queue* queues[2] = {&rcd.flow_queue, &rcd.rarr_queue};
  const WaitQueue names[2] = {WaitQueue::kFlow, WaitQueue::kRarr};
  for (int k = 0; k < 2; ++k) {
    WalkQueue(*queues[k], kMaxQueueWalk, [&](const list_head* p) {
      const int i = nodes.IndexOf(p);
      if (i >= 0 && on[i] == WaitQueue::kNone) on[i] = names[k];
      return true;
    });
  }
}

}  // namespace flowcheck

#endif  // FLOWCHECK_CORE_MODEL_VIEW_H_
