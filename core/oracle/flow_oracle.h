// core/oracle/flow_oracle.h: the reference model of the hfi1 flow layer.
//
// Small, single-threaded, deterministic, and written from docs/kernel.md
// ("Flows and generations", "Wait queues") without sharing code with the model: plain containers instead of
// bitmaps, lists and locks, and the formulas (generations, registers) of
// core/reference.h, so that a bug in the model (or in a mutation of it)
// shows up as a disagreement. It reproduces the KERNEL's behaviour,
// quirks included ([R-1] mischarged dequeues, [R-3], [R-7], the flag that
// __trigger_tid_waiter leaves set), because that is what the model must match.
//
// One operation per caller_* function of core/callers.h, same semantics, each
// returning what the model's returns; RunOneWork() is the model's
// workqueue_struct::RunOne(). QPs are indices 0..n-1.
//
//   FlowOracle o(initial_generations, {1, 2, 3});   // qpns
//   int r = o.SetupHwFlow(0);                       // 0 or -EAGAIN
//   o.RunOneWork();
//   o.qp(0).flow, o.owner(5), o.flow_queue().members ...
//
// core/oracle/compare.h compares a FlowOracle with the model; lockstep.h runs
// both side by side.
#ifndef FLOWCHECK_CORE_ORACLE_FLOW_ORACLE_H_
#define FLOWCHECK_CORE_ORACLE_FLOW_ORACLE_H_

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "core/reference.h"

namespace flowcheck {
namespace oracle {

inline constexpr int kNumFlows = reference::kNumFlows;
inline constexpr int kNoFlow = reference::kNoFlow;
inline constexpr uint32_t kReservedGeneration = reference::kReservedGeneration;
inline constexpr int kEagain = -11;  // -EAGAIN on Linux

enum class Queue { kNone, kFlow, kRarr };
enum class WorkKind { kTrigger, kSend };  // trigger_work, the send work

const char* QueueName(Queue q);
const char* WorkKindName(WorkKind k);

struct QpState {
  uint32_t qpn = 0;
  // flow_state
  int flow = kNoFlow;
  int last = kNoFlow;
  uint32_t generation = kReservedGeneration;
  uint32_t psn = 0;
  // wait state
  bool waiting = false;     // HFI1_S_WAIT_TID_SPACE
  Queue on = Queue::kNone;  // the list tid_wait is on
  uint32_t tid_enqueue = 0;
  int refs = 1;             // the QP table's reference to start with
  bool trigger_pending = false;
  bool send_pending = false;
  bool resync = false;
  // request-layer model
  bool wants_flow = false;
  uint32_t send_engine_runs = 0;
  uint32_t flows_granted = 0;
};

struct QueueState {
  std::deque<int> members;  // QP indices, head first
  uint32_t enqueue = 0;
  uint32_t dequeue = 0;
};

struct WorkItem {
  int qp;
  WorkKind kind;
};

struct StateSnapshot;

class FlowOracle {
 public:
  // Sets the whole state from a model snapshot (snapshot.h).
  friend bool AdoptSnapshot(const StateSnapshot& s, FlowOracle* o);

  static constexpr int kFree = -1;     // owner(): nobody
  static constexpr int kHarness = -2;  // owner(): ReserveFlow, no QP

  FlowOracle(const std::array<uint32_t, kNumFlows>& initial_generations,
             const std::vector<uint32_t>& qpns);

  // As if freshly constructed with these generations and the same QPs;
  // keeps the containers' memory (Lockstep::Reset, once per fuzz input).
  void Reset(const std::array<uint32_t, kNumFlows>& initial_generations);

  // The operations (see core/callers.h for what each stands for).
  int SetupHwFlow(int qp);
  void ClearHwFlow(int qp);
  void FlushWait(int qp);
  void RarrWait(int qp);
  int RarrGrant(int qp);  // 0, or kEagain (queued: another QP waits first)
  void RarrRelease(int qp);
  void SetWantsFlow(int qp, bool wants_flow);
  bool Resync(int qp, uint32_t psn);
  void ClearResync(int qp);
  int ReserveFlow(int last);
  void ReleaseFlow(int idx);
  // first_qp(flow_queue) + tid_rdma_schedule_tid_wakeup: what a harness
  // does after it released a flow itself (hfi1_kern_clear_hw_flow's wakeup).
  void WakeFlowQueueHead() { WakeByWork(Head(Queue::kFlow)); }
  // Runs the oldest pending work item; false if none is pending.
  bool RunOneWork();

  // Observable state.
  int num_qps() const { return static_cast<int>(qps_.size()); }
  const QpState& qp(int i) const { return qps_[i]; }
  int owner(int flow) const { return owner_[flow]; }  // kFree, kHarness or a QP
  bool reserved(int flow) const { return owner_[flow] != kFree; }
  uint32_t generation(int flow) const { return generation_[flow]; }
  uint64_t reg(int flow) const { return reg_[flow]; }
  const QueueState& flow_queue() const { return flow_queue_; }
  const QueueState& rarr_queue() const { return rarr_queue_; }
  const std::deque<WorkItem>& work() const { return work_; }
  uint64_t n_tidwait() const { return n_tidwait_; }
  // Flows reserved through ReserveFlow and not released (for CheckOptions).
  unsigned long harness_flows() const;

  // The next generation (skips RESERVED): reference::NextGeneration,
  // named here too for callers that drive the oracle (fuzz/executor.cc).
  static uint32_t NextGeneration(uint32_t gen) { return reference::NextGeneration(gen); }

 private:
  QueueState& QueueOf(Queue q) { return q == Queue::kFlow ? flow_queue_ : rarr_queue_; }
  int Head(Queue q) { return QueueOf(q).members.empty() ? -1 : QueueOf(q).members.front(); }
  int PickFlow(int last) const;     // preferred if free, else lowest free, else -1
  void Enqueue(Queue q, int qp);    // queue_qp_for_tid_wait
  void Remove(Queue charged, int qp);  // dequeue_tid_waiter / flush
  void WakeByWork(int qp);          // first_qp + tid_rdma_schedule_tid_wakeup
  void ScheduleSend(int qp);        // hfi1_schedule_send
  void DoSend(int qp);              // hfi1_do_send + the default send engine

  std::vector<QpState> qps_;
  std::array<int, kNumFlows> owner_;
  std::array<uint32_t, kNumFlows> generation_;
  std::array<uint64_t, kNumFlows> reg_;
  QueueState flow_queue_, rarr_queue_;
  std::deque<WorkItem> work_;
  uint64_t n_tidwait_ = 0;
};

}  // namespace oracle
}  // namespace flowcheck

#endif  // FLOWCHECK_CORE_ORACLE_FLOW_ORACLE_H_
