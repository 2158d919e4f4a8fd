// core/oracle/snapshot.cc: see snapshot.h. Each fill mirrors, field by field,
// what compare.cc reads; keep the two in step.
#include "core/oracle/snapshot.h"

#include "core/model_view.h"
#include "core/oracle/compare.h"
#include "lockcheck/lockdep.h"

namespace flowcheck {
namespace oracle {
namespace {

// The fills write every used slot (snapshot.h); these are the ones built
// up incrementally.
void StartFill(StateSnapshot* s) {
  s->flow_mask = 0;
  s->num_work = 0;
  for (StateSnapshot::Queue& q : s->queue) q.length = 0;
}

}  // namespace

bool SnapshotModel(const hfi1_ctxtdata& rcd, absl::Span<rvt_qp* const> qps,
                   const workqueue_struct& wq, StateSnapshot* s) {
  lockdep_assert_held(&rcd.exp_lock);
  if (qps.size() > static_cast<size_t>(kSnapshotMaxQps)) return false;
  StartFill(s);
  const int n = static_cast<int>(qps.size());
  s->num_qps = static_cast<uint32_t>(n);
  const QpNodes nodes(qps);

  s->flow_mask = rcd.flow_mask;
  for (int f = 0; f < kNumFlows; ++f) {
    s->generation[f] = rcd.flows[f].generation;
    s->reg[f] = static_cast<uint64_t>(rcd.rcv_tid_flow_table[f].load(std::memory_order_relaxed));
  }

  // Which list each QP is on and each queue's members, read as compare.cc
  // reads them (core/model_view.h).
  WaitQueue on[kSnapshotMaxQps];
  QueueOfEach(rcd, nodes, on);
  const tid_queue* queues[2] = {&rcd.flow_queue, &rcd.rarr_queue};
  for (int k = 0; k < 2; ++k) {
    StateSnapshot::Queue& q = s->queue[k];
    q.enqueue = queues[k]->enqueue;
    q.dequeue = queues[k]->dequeue;
    QueueMembers(*queues[k], nodes, [&q](int i) { q.members[q.length++] = i; });
  }

  for (int i = 0; i < n; ++i) {
    const rvt_qp* qp = qps[i];
    const hfi1_qp_priv* p = qp->priv;
    StateSnapshot::Qp& q = s->qp[i];
    q.flow = static_cast<uint32_t>(static_cast<int>(p->flow_state.index));
    q.last = static_cast<uint32_t>(static_cast<int>(p->flow_state.last_index));
    q.generation = p->flow_state.generation;
    q.psn = p->flow_state.psn;
    q.waiting = WaitTidSpaceFlag(qp);
    q.on = static_cast<uint32_t>(AsOracleQueue(on[i]));
    q.tid_enqueue = p->tid_enqueue;
    q.refs = static_cast<uint32_t>(qp->refcount.load(std::memory_order_acquire));
    q.trigger_pending = work_pending(&p->tid_rdma.trigger_work);
    q.send_pending = work_pending(&p->s_iowait.iowork);
    q.resync = p->resync;
    q.wants_flow = p->model_req.wants_flow;
    q.send_engine_runs = p->model_req.send_engine_runs;
    q.flows_granted = p->model_req.flows_granted;
  }

  // Deferred work in order; an item of no listed QP is (-1, trigger), as in
  // compare.cc.
  const work_struct* pending[kSnapshotMaxWork];
  const size_t count = wq.PendingInto(pending, kSnapshotMaxWork);
  if (count > static_cast<size_t>(kSnapshotMaxWork)) return false;
  s->num_work = static_cast<uint32_t>(count);
  for (size_t w = 0; w < count; ++w) {
    StateSnapshot::Work item{-1, static_cast<uint32_t>(WorkKind::kTrigger)};
    for (int i = 0; i < n; ++i) {
      if (pending[w] == &qps[i]->priv->tid_rdma.trigger_work) {
        item = {i, static_cast<uint32_t>(WorkKind::kTrigger)};
      } else if (pending[w] == &qps[i]->priv->s_iowait.iowork) {
        item = {i, static_cast<uint32_t>(WorkKind::kSend)};
      }
    }
    s->work[w] = item;
  }
  s->n_tidwait = rcd.dd->verbs_dev.n_tidwait;
  return true;
}

bool SnapshotOracle(const FlowOracle& o, StateSnapshot* s) {
  const int n = o.num_qps();
  const size_t max_members = static_cast<size_t>(kSnapshotMaxQps) + 1;
  if (n > kSnapshotMaxQps || o.flow_queue().members.size() > max_members ||
      o.rarr_queue().members.size() > max_members ||
      o.work().size() > static_cast<size_t>(kSnapshotMaxWork)) {
    return false;
  }
  StartFill(s);
  s->num_qps = static_cast<uint32_t>(n);
  for (int f = 0; f < kNumFlows; ++f) {
    if (o.reserved(f)) s->flow_mask |= 1ull << f;
    s->generation[f] = o.generation(f);
    s->reg[f] = o.reg(f);
  }
  const QueueState* queues[2] = {&o.flow_queue(), &o.rarr_queue()};
  for (int k = 0; k < 2; ++k) {
    StateSnapshot::Queue& q = s->queue[k];
    q.enqueue = queues[k]->enqueue;
    q.dequeue = queues[k]->dequeue;
    for (int m : queues[k]->members) q.members[q.length++] = m;
  }
  for (int i = 0; i < n; ++i) {
    const QpState& from = o.qp(i);
    StateSnapshot::Qp& q = s->qp[i];
    q.flow = static_cast<uint32_t>(from.flow);
    q.last = static_cast<uint32_t>(from.last);
    q.generation = from.generation;
    q.psn = from.psn;
    q.waiting = from.waiting;
    q.on = static_cast<uint32_t>(from.on);
    q.tid_enqueue = from.tid_enqueue;
    q.refs = static_cast<uint32_t>(from.refs);
    q.trigger_pending = from.trigger_pending;
    q.send_pending = from.send_pending;
    q.resync = from.resync;
    q.wants_flow = from.wants_flow;
    q.send_engine_runs = from.send_engine_runs;
    q.flows_granted = from.flows_granted;
  }
  s->num_work = static_cast<uint32_t>(o.work().size());
  size_t w = 0;
  for (const WorkItem& item : o.work()) {
    s->work[w++] = {item.qp, static_cast<uint32_t>(item.kind)};
  }
  s->n_tidwait = o.n_tidwait();
  return true;
}

bool AdoptSnapshot(const StateSnapshot& s, FlowOracle* o) {
  const int n = static_cast<int>(s.num_qps);
  if (n != o->num_qps() || n > kSnapshotMaxQps || s.num_work > kSnapshotMaxWork ||
      (s.flow_mask >> kNumFlows) != 0) {
    return false;
  }
  // Built aside, then swapped in: a snapshot the oracle cannot hold leaves
  // `o` as it was.
  std::vector<QpState> qps;
  std::array<int, kNumFlows> owner;
  QueueState queue[2];
  std::deque<WorkItem> work;
  for (int i = 0; i < n; ++i) {
    const StateSnapshot::Qp& q = s.qp[i];
    QpState st;
    st.qpn = o->qps_[i].qpn;
    st.flow = static_cast<int>(q.flow);
    st.last = static_cast<int>(q.last);
    st.generation = q.generation;
    st.psn = q.psn;
    st.waiting = q.waiting != 0;
    st.on = static_cast<Queue>(q.on);
    st.tid_enqueue = q.tid_enqueue;
    st.refs = static_cast<int>(q.refs);
    st.trigger_pending = q.trigger_pending != 0;
    st.send_pending = q.send_pending != 0;
    st.resync = q.resync != 0;
    st.wants_flow = q.wants_flow != 0;
    st.send_engine_runs = q.send_engine_runs;
    st.flows_granted = q.flows_granted;
    qps.push_back(st);
  }
  for (int f = 0; f < kNumFlows; ++f) {
    owner[f] = FlowOracle::kFree;
    if ((s.flow_mask >> f) & 1) {
      owner[f] = FlowOracle::kHarness;  // reserved, and no QP holds it
      for (int i = 0; i < n; ++i) {
        if (qps[i].flow == f) owner[f] = i;
      }
    }
  }
  for (int k = 0; k < 2; ++k) {
    const StateSnapshot::Queue& q = s.queue[k];
    if (q.length > static_cast<uint32_t>(kSnapshotMaxQps + 1)) return false;
    queue[k].enqueue = q.enqueue;
    queue[k].dequeue = q.dequeue;
    for (uint32_t m = 0; m < q.length; ++m) {
      if (q.members[m] < 0 || q.members[m] >= n) return false;
      queue[k].members.push_back(q.members[m]);
    }
  }
  for (uint32_t w = 0; w < s.num_work; ++w) {
    if (s.work[w].qp < 0 || s.work[w].qp >= n) return false;
    work.push_back({s.work[w].qp, static_cast<WorkKind>(s.work[w].kind)});
  }
  o->qps_ = std::move(qps);
  o->owner_ = owner;
  for (int f = 0; f < kNumFlows; ++f) {
    o->generation_[f] = s.generation[f];
    o->reg_[f] = s.reg[f];
  }
  o->flow_queue_ = std::move(queue[0]);
  o->rarr_queue_ = std::move(queue[1]);
  o->work_ = std::move(work);
  o->n_tidwait_ = s.n_tidwait;
  return true;
}

}  // namespace oracle
}  // namespace flowcheck
