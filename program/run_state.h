// program/run_state.h: internal to the engine. The state one stress run
// shares between its threads, and what each thread keeps of its own.
//
// Ownership: a Participant's fields are written by its own thread only,
// except `doing` and `counters` (relaxed atomics read by the watchdog and
// the progress line). Other threads read the rest only inside a quiescent
// point's leader action, ordered after the owner by the barrier. Every
// function that acts for a thread is handed its Participant explicitly; no
// harness state is thread-local.
#ifndef FLOWCHECK_PROGRAM_RUN_STATE_H_
#define FLOWCHECK_PROGRAM_RUN_STATE_H_

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/hfi1.h"
#include "core/qp.h"
#include "core/workqueue.h"
#include "program/barrier.h"
#include "core/caller_checks.h"
#include "program/config.h"
#include "program/counters.h"
#include "program/driver.h"
#include "program/judge.h"
#include "program/oracle_follow.h"
#include "program/rng.h"
#include "program/yield.h"

namespace flowcheck {
namespace program {

// What an op thread believes about one of its QPs (cross-checked against the
// model at quiescent points).
enum class QpState {
  kIdle,         // no flow, on no queue, wants nothing
  kOwned,        // owns a flow (hfi1_kern_setup_hw_flow returned 0, or granted)
  kWaitingFlow,  // -EAGAIN: on flow_queue, wants_flow; the send engine will get it
  kOwnedRarr,    // owns a flow and waits on rarr_queue (TIDs)
};
const char* QpStateName(QpState s);

struct QpSlot {
  rvt_qp* qp;
  ContextState* ctx;
  QpState state = QpState::kIdle;
};

struct Participant {
  int index = 0;           // op threads 0..T-1; the interrupt thread T
  bool irq = false;
  std::string name;        // "stress-<i>" / "rcv-irq"
  bool strict = false;     // StressConfig::strict: divergences fail too
  Rng rng{0};
  int64_t ops_limit = 0;   // 0: no limit
  int64_t ops_done = 0;
  std::vector<QpSlot> slots;                         // op threads only
  std::vector<std::pair<ContextState*, int>> bare;   // flows held without a QP
  std::map<std::string, std::string> divergences;    // id -> first example
  std::atomic<const char*> doing{"starting"};
  Counters counters;
  // A controlled execution's oracle (oracle_follow.h), while its logical
  // threads run; the participant is its logical thread `index`.
  OracleFollower* oracle = nullptr;

  void Count(Counter c, uint64_t n = 1) { counters.Count(c, n); }
};

struct Run {
  StressConfig config;
  std::unique_ptr<YieldPolicy> yield;
  workqueue_struct wq{"stress"};
  std::vector<std::unique_ptr<hfi1_devdata>> devices;  // one per context
  std::vector<std::unique_ptr<ContextState>> contexts;
  std::vector<rvt_qp*> all_qps;              // QP j has qpn j + 1
  std::vector<ContextState*> qp_contexts;    // qp_contexts[j]: all_qps[j]'s context
  std::vector<std::unique_ptr<Participant>> participants;
  std::unique_ptr<QuiescentBarrier> barrier;
  std::atomic<uint64_t> progress{0};  // the watchdog's heartbeat
  StressProgress* live = nullptr;     // optional: progress lines, stop requests
  std::chrono::steady_clock::time_point start;
  uint64_t quiescent_points = 0;      // leader only
  int drain_rounds = 0;               // leader only
  int stopped_by = 0;                 // leader only: the stop request that ended the main phase
  std::map<std::string, std::string> leader_divergences;  // leader only
  // A controlled execution (--sched): logical threads under sched/, no OS
  // worker threads; the quiescent point, drain and final checks run on the
  // scheduler's controller, which runs pending work itself (DrainWork).
  bool controlled = false;
  std::atomic<int> listed_threads_done{0};  // controlled: op threads and rcv-irq that ended
  std::unique_ptr<OracleFollower> oracle;   // controlled, one context (oracle_follow.h)

  void Beat() { progress.fetch_add(1, std::memory_order_relaxed); }
  // A stop was requested (StressProgress::stop_signal): finish early.
  bool StopRequested() const {
    return live != nullptr && live->stop_signal.load(std::memory_order_relaxed) != 0;
  }
};

// Builds the run's model from run->config: contexts (one device each), the
// participants ("stress-<i>", and "rcv-irq" with irq_thread), their QPs
// (QP j on context j % contexts) and the quiescent barrier.
void BuildModel(Run* run);

// Runs the work queue until nothing is pending or running: waits for the
// worker threads, or under control runs the items on the calling thread.
void DrainWork(Run* run);

// The total of counter `c` over the run's participants.
uint64_t Sum(const Run& run, Counter c);

// Seconds since the run's threads started.
double Elapsed(const Run& run);

// One line per participant (what it is doing, its ops) and the work queue's
// backlog: the watchdog's view of the harness.
std::string DescribeParticipants(const Run& run);

inline void Judge(Participant* p, const std::vector<Finding>& findings, const char* where) {
  if (!findings.empty()) JudgeInto(&p->divergences, findings, where, p->name, p->strict);
}

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_RUN_STATE_H_
