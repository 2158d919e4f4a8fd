// core/invariants_wait.cc: W1-W6 (docs/kernel-invariants.md, "Wait queues (W1-W6)"), the TID wait queues.
#include "absl/container/inlined_vector.h"
#include "common/strings.h"
#include "core/invariants_internal.h"
#include "core/model_view.h"
#include "core/workqueue.h"
#include "lockcheck/lockdep.h"

namespace flowcheck {
namespace internal {
namespace {

// Small inline sizes: this runs after every fuzz step, where the common case
// (a few QPs, no violation) must not allocate.
struct QueueWalk {
  const char* name;
  const tid_queue* queue;
  absl::InlinedVector<int, 16> order;  // indices into qps, head first
};

// Walks `q` without trusting it: every node must be a known QP's tid_wait,
// links must agree both ways, and the walk is bounded (a cycle is reported,
// not followed forever).
QueueWalk Walk(const char* name, const tid_queue& q, const QpNodes& nodes, Collector* c) {
  QueueWalk w{name, &q, {}};
  const list_head* head = &q.queue_head;
  const list_head* prev = head;
  bool stopped = false;
  // The visit stops by itself at the latest one node past a queue holding
  // every known QP once, which it reports as a cycle: that is the bound.
  WalkQueue(q, nodes.size() + 2, [&](const list_head* p) {
    const int known = nodes.IndexOf(p);
    if (known < 0) {
      c->Add(Invariant::kW1, Severity::kViolation,
             "%s holds node %p that is no listed QP's tid_wait (a QP missing from the "
             "argument, or a corrupted list); walk stopped",
             name, static_cast<const void*>(p));
      stopped = true;
      return false;
    }
    if (p->prev != prev) {
      c->Add(Invariant::kW1, Severity::kViolation, "%s: qp %u's tid_wait.prev does not point back",
             name, nodes.qps()[known]->qp_num);
    }
    if (w.order.size() > nodes.size()) {
      c->Add(Invariant::kW1, Severity::kViolation, "%s is longer than the number of QPs (a cycle)",
             name);
      stopped = true;
      return false;
    }
    w.order.push_back(known);
    prev = p;
    return true;
  });
  if (!stopped && head->prev != prev) {
    c->Add(Invariant::kW1, Severity::kViolation, "%s: queue_head.prev does not point at the tail",
           name);
  }
  return w;
}

}  // namespace

void CheckWaitQueues(const hfi1_ctxtdata& rcd, absl::Span<rvt_qp* const> qps,
                     const CheckOptions& options, Collector* c) {
  const QpNodes nodes(qps);
  QueueWalk walks[2] = {Walk("flow_queue", rcd.flow_queue, nodes, c),
                        Walk("rarr_queue", rcd.rarr_queue, nodes, c)};
  absl::InlinedVector<int, 16> on_flow(qps.size(), 0), on_rarr(qps.size(), 0);
  for (int i : walks[0].order) ++on_flow[i];
  for (int i : walks[1].order) ++on_rarr[i];

  for (size_t i = 0; i < qps.size(); ++i) {
    const rvt_qp* qp = qps[i];
    const hfi1_qp_priv* priv = qp->priv;
    const int f = on_flow[i];
    const int r = on_rarr[i];
    const bool queued = f + r > 0;
    // W1: one node, at most one list, at most once.
    if (f + r > 1) {
      c->Add(Invariant::kW1, Severity::kViolation,
             "qp %u's tid_wait is on flow_queue %d time(s) and rarr_queue %d time(s)",
             qp->qp_num, f, r);
    }
    if (!queued && !list_empty(&priv->tid_wait)) {
      c->Add(Invariant::kW1, Severity::kViolation,
             "qp %u's tid_wait is linked but on neither queue", qp->qp_num);
    }
    // W2: queued => flagged (at rest only: _tid_rdma_flush_wait clears the
    // flag before it takes exp_lock to unlink).
    if (options.quiescent && queued && !WaitTidSpaceFlag(qp)) {
      c->Add(Invariant::kW2, Severity::kViolation,
             "qp %u is on %s without HFI1_S_WAIT_TID_SPACE in s_flags", qp->qp_num,
             f ? "flow_queue" : "rarr_queue");
    }
    // W3: references. The queue owns one, a pending trigger_work owns one.
    // Read the count BEFORE the PENDING bit: a running trigger_work may clear
    // its bit and drop its reference without exp_lock. Any item seen pending
    // afterwards got its reference from first_qp under exp_lock, i.e. before
    // this call took the lock, so the count read first includes it: the
    // lower bound is sound while other threads run.
    const int refs = qp->refcount.load(std::memory_order_acquire);
    const bool pending = work_pending(&priv->tid_rdma.trigger_work);
    const int expected = options.base_refs + (queued ? 1 : 0) + (pending ? 1 : 0);
    if (refs < expected) {
      c->Add(Invariant::kW3, Severity::kViolation,
             "qp %u holds %d reference(s), fewer than the %d owned (base %d, queued %d, "
             "trigger_work pending %d): a reference was dropped twice",
             qp->qp_num, refs, expected, options.base_refs, queued, pending);
    } else if (options.quiescent && refs > expected) {
      c->Add(Invariant::kW3, Severity::kViolation,
             "qp %u holds %d reference(s) at rest, %d expected (base %d, queued %d, "
             "trigger_work pending %d): a reference leaked",
             qp->qp_num, refs, expected, options.base_refs, queued, pending);
    }
    // W4 (state part): a QP waiting for a flow does not own one.
    if (f > 0 && priv->flow_state.index < RXE_NUM_TID_FLOWS) {
      c->Add(Invariant::kW4, Severity::kViolation, "qp %u waits on flow_queue while owning flow %u",
             qp->qp_num, priv->flow_state.index);
    }
  }

  // W4 (transition part): the audit of every grant since context creation.
  if (rcd.audit.out_of_order_grants > 0) {
    c->Add(Invariant::kW4, Severity::kViolation,
           "%" PRIu64 " of %" PRIu64
           " flow grant(s) went to a QP that was not the head of a non-empty "
           "flow_queue; last: qp %u was granted while qp %u was the head",
           rcd.audit.out_of_order_grants, rcd.audit.grants, rcd.audit.last_out_of_order_qpn,
           rcd.audit.last_out_of_order_head_qpn);
  }

  const int drifts[2] = {rcd.audit.flow_queue_drift, rcd.audit.rarr_queue_drift};
  for (int k = 0; k < 2; ++k) {
    const QueueWalk& w = walks[k];
    // W5: enqueue - dequeue == length, unless removals were charged to the
    // wrong queue ([R-1], recorded by the audit).
    const u32 len = static_cast<u32>(w.order.size());
    const u32 gap = w.queue->enqueue - w.queue->dequeue - len;
    const u32 explained = static_cast<u32>(drifts[k]);
    if (gap != 0 && gap == explained) {
      c->Add(Invariant::kW5, Severity::kUpstreamDivergence,
             "[R-1] %s: enqueue %u - dequeue %u = %d but %u queued; the drift %d comes from "
             "%u removal(s) charged to the wrong queue (position_in_queue and RNR timeouts "
             "drift with it)",
             w.name, w.queue->enqueue, w.queue->dequeue,
             static_cast<int>(w.queue->enqueue - w.queue->dequeue), len, drifts[k],
             rcd.audit.mischarged_removals);
    } else if (gap != explained) {
      c->Add(Invariant::kW5, Severity::kViolation,
             "%s: enqueue %u - dequeue %u = %d but %u queued; %d of that is explained by "
             "[R-1] mischarges, %d is not",
             w.name, w.queue->enqueue, w.queue->dequeue,
             static_cast<int>(w.queue->enqueue - w.queue->dequeue), len, drifts[k],
             static_cast<int>(gap - explained));
    }
    // W6: tid_enqueue strictly increasing along the queue (mod 2^32), and
    // never ahead of the queue's counter.
    for (size_t i = 0; i + 1 < w.order.size(); ++i) {
      const rvt_qp* qa = qps[w.order[i]];
      const rvt_qp* qb = qps[w.order[i + 1]];
      const u32 a = qa->priv->tid_enqueue, b = qb->priv->tid_enqueue;
      if (static_cast<int32_t>(b - a) <= 0) {
        c->Add(Invariant::kW6, Severity::kViolation,
               "%s: qp %u (tid_enqueue %u) is queued behind qp %u (tid_enqueue %u)", w.name,
               qb->qp_num, b, qa->qp_num, a);
      }
    }
    if (!w.order.empty()) {
      const rvt_qp* tail = qps[w.order.back()];
      const u32 last = tail->priv->tid_enqueue;
      if (static_cast<int32_t>(w.queue->enqueue - last) < 0) {
        c->Add(Invariant::kW6, Severity::kViolation,
               "%s: tail qp %u has tid_enqueue %u, ahead of the queue's enqueue %u", w.name,
               tail->qp_num, last, w.queue->enqueue);
      }
    }
  }
}

}  // namespace internal
}  // namespace flowcheck
