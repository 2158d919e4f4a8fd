// core/oracle/flow_oracle.cc: see flow_oracle.h. Each operation says which
// kernel behaviour (the kernel function, as docs/kernel.md describes it) it stands for.
#include "core/oracle/flow_oracle.h"

#include <algorithm>

namespace flowcheck {
namespace oracle {

using reference::NextGeneration;
using reference::RegisterValue;

const char* QueueName(Queue q) {
  switch (q) {
    case Queue::kNone: return "none";
    case Queue::kFlow: return "flow_queue";
    case Queue::kRarr: return "rarr_queue";
  }
  return "?";
}

const char* WorkKindName(WorkKind k) {
  return k == WorkKind::kTrigger ? "trigger_work" : "send_work";
}

FlowOracle::FlowOracle(const std::array<uint32_t, kNumFlows>& initial_generations,
                       const std::vector<uint32_t>& qpns) {
  for (uint32_t qpn : qpns) {
    QpState q;
    q.qpn = qpn;
    qps_.push_back(q);
  }
  Reset(initial_generations);
}

void FlowOracle::Reset(const std::array<uint32_t, kNumFlows>& initial_generations) {
  for (QpState& q : qps_) {
    const uint32_t qpn = q.qpn;
    q = QpState();
    q.qpn = qpn;
  }
  for (int i = 0; i < kNumFlows; ++i) {
    owner_[i] = kFree;
    generation_[i] = initial_generations[i];
    reg_[i] = RegisterValue(kReservedGeneration);  // hfi1_kern_init_ctxt_generations: released at init
  }
  for (QueueState* q : {&flow_queue_, &rarr_queue_}) {
    q->members.clear();  // not "= QueueState()": a new std::deque allocates
    q->enqueue = q->dequeue = 0;
  }
  work_.clear();
  n_tidwait_ = 0;
}

unsigned long FlowOracle::harness_flows() const {
  unsigned long m = 0;
  for (int i = 0; i < kNumFlows; ++i) {
    if (owner_[i] == kHarness) m |= 1UL << i;
  }
  return m;
}

int FlowOracle::PickFlow(int last) const {
  // kern_reserve_flow: the preferred flow if it is a flow index and free, else the lowest.
  if (last >= 0 && last < kNumFlows && owner_[last] == kFree) return last;
  for (int i = 0; i < kNumFlows; ++i) {
    if (owner_[i] == kFree) return i;
  }
  return -1;
}

void FlowOracle::Enqueue(Queue which, int qp) {
  // queue_qp_for_tid_wait: only a QP on no list is queued; otherwise nothing changes.
  QpState& q = qps_[qp];
  if (q.on != Queue::kNone) return;
  QueueState& queue = QueueOf(which);
  q.waiting = true;
  q.on = which;
  queue.members.push_back(qp);
  q.tid_enqueue = ++queue.enqueue;
  ++n_tidwait_;
  ++q.refs;
}

void FlowOracle::Remove(Queue charged, int qp) {
  // dequeue_tid_waiter / _tid_rdma_flush_wait: leaves whichever list it is on; `charged` pays ([R-1]).
  QpState& q = qps_[qp];
  if (q.on == Queue::kNone) return;
  std::deque<int>& m = QueueOf(q.on).members;
  m.erase(std::find(m.begin(), m.end(), qp));
  q.on = Queue::kNone;
  q.waiting = false;
  ++QueueOf(charged).dequeue;
  --q.refs;
}

void FlowOracle::WakeByWork(int qp) {
  // first_qp + tid_rdma_schedule_tid_wakeup: a new reference goes to the work item, or is dropped when the
  // item is already pending (which already owns one).
  if (qp < 0) return;
  QpState& q = qps_[qp];
  if (q.trigger_pending) return;  // +1 then -1
  ++q.refs;
  q.trigger_pending = true;
  work_.push_back({qp, WorkKind::kTrigger});
}

void FlowOracle::ScheduleSend(int qp) {
  QpState& q = qps_[qp];
  if (q.send_pending) return;
  q.send_pending = true;
  work_.push_back({qp, WorkKind::kSend});
}

void FlowOracle::DoSend(int qp) {
  QpState& q = qps_[qp];
  ++q.send_engine_runs;
  if (!q.wants_flow) return;
  if (SetupHwFlow(qp) == 0) {
    q.wants_flow = false;
    ++q.flows_granted;
  }
}

int FlowOracle::SetupHwFlow(int qp) {
  QpState& q = qps_[qp];
  // hfi1_kern_setup_hw_flow step 1: already owns a flow.
  if (q.flow != kNoFlow) return 0;
  // kernel_tid_waiters: strict FIFO; only the flagged head, or anyone when nobody waits.
  const int head = Head(Queue::kFlow);
  const bool may_allocate = head == -1 || (head == qp && q.waiting);
  const int flow = may_allocate ? PickFlow(q.last) : -1;
  if (flow < 0) {
    Enqueue(Queue::kFlow, qp);
    return kEagain;
  }
  // Steps 5-8.
  owner_[flow] = qp;
  q.flow = flow;
  q.last = flow;
  if (q.generation != kReservedGeneration) generation_[flow] = q.generation;  // RESYNC
  q.generation = generation_[flow];
  reg_[flow] = RegisterValue(q.generation);
  q.psn = 0;
  // Steps 9-10: leave the queue, wake the new head.
  Remove(Queue::kFlow, qp);
  WakeByWork(Head(Queue::kFlow));
  return 0;
}

void FlowOracle::ClearHwFlow(int qp) {
  QpState& q = qps_[qp];
  // hfi1_kern_clear_hw_flow.
  if (q.flow >= kNumFlows) return;
  const int flow = q.flow;
  generation_[flow] = NextGeneration(generation_[flow]);
  reg_[flow] = RegisterValue(kReservedGeneration);
  owner_[flow] = kFree;
  q.flow = kNoFlow;
  q.psn = 0;
  q.generation = kReservedGeneration;
  const int head = Head(Queue::kFlow);
  if (head == qp) {
    if (q.waiting) ScheduleSend(qp);  // __trigger_tid_waiter
  } else {
    WakeByWork(head);
  }
}

void FlowOracle::FlushWait(int qp) {
  // hfi1_tid_rdma_flush_wait: flow_queue first, then rarr_queue; the first call removes the QP
  // from whichever list it is on and charges flow_queue ([R-1]).
  qps_[qp].waiting = false;
  Remove(Queue::kFlow, qp);
  qps_[qp].waiting = false;
  Remove(Queue::kRarr, qp);
}

void FlowOracle::RarrWait(int qp) { Enqueue(Queue::kRarr, qp); }

int FlowOracle::RarrGrant(int qp) {
  // hfi1_kern_exp_rcv_setup's kernel_tid_waiters gate, as in SetupHwFlow.
  const int head = Head(Queue::kRarr);
  if (!(head == -1 || (head == qp && qps_[qp].waiting))) {
    Enqueue(Queue::kRarr, qp);
    return kEagain;
  }
  Remove(Queue::kRarr, qp);
  WakeByWork(Head(Queue::kRarr));
  return 0;
}

void FlowOracle::RarrRelease(int qp) {
  const int head = Head(Queue::kRarr);
  if (head == qp) {
    if (qps_[qp].waiting) ScheduleSend(qp);
  } else {
    WakeByWork(head);
  }
}

void FlowOracle::SetWantsFlow(int qp, bool wants_flow) { qps_[qp].wants_flow = wants_flow; }

bool FlowOracle::Resync(int qp, uint32_t psn) {
  // hfi1_rc_rcv_tid_rdma_resync, steps 1-6 (docs/kernel.md, "Sync points and RESYNC").
  QpState& q = qps_[qp];
  const uint32_t generation = reference::ResyncGeneration(psn);
  const uint32_t expected =
      q.generation == kReservedGeneration ? generation : NextGeneration(q.generation);
  const uint32_t before_expected = reference::GenerationBefore(expected);
  if (generation != expected && generation != before_expected) return false;
  if (q.resync) return false;
  if (q.flow == kNoFlow) {
    q.generation = generation;
  } else {
    generation_[q.flow] = generation;
    q.generation = generation;
    reg_[q.flow] = RegisterValue(generation);
  }
  q.psn = 0;
  q.resync = true;
  return true;
}

void FlowOracle::ClearResync(int qp) { qps_[qp].resync = false; }

int FlowOracle::ReserveFlow(int last) {
  const int flow = PickFlow(last);
  if (flow < 0) return kEagain;
  owner_[flow] = kHarness;
  return flow;
}

void FlowOracle::ReleaseFlow(int idx) {
  if (idx >= 0 && idx < kNumFlows) owner_[idx] = kFree;
}

bool FlowOracle::RunOneWork() {
  if (work_.empty()) return false;
  const WorkItem item = work_.front();
  work_.pop_front();
  QpState& q = qps_[item.qp];
  if (item.kind == WorkKind::kSend) {
    q.send_pending = false;
    DoSend(item.qp);
  } else {
    // tid_rdma_trigger_resume: only a QP still waiting runs its send engine; the item's
    // reference is dropped either way.
    q.trigger_pending = false;
    if (q.waiting) DoSend(item.qp);
    --q.refs;
  }
  return true;
}

}  // namespace oracle
}  // namespace flowcheck
