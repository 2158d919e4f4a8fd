// program/run_state.cc: see run_state.h.
#include "program/run_state.h"

#include "common/strings.h"
#include "program/failure.h"

namespace flowcheck {
namespace program {

const char* QpStateName(QpState s) {
  switch (s) {
    case QpState::kIdle: return "idle";
    case QpState::kOwned: return "owns a flow";
    case QpState::kWaitingFlow: return "waits for a flow";
    case QpState::kOwnedRarr: return "owns a flow, waits for TIDs";
  }
  return "?";
}

void DrainWork(Run* run) {
  if (run->controlled) {
    // On the controller, where no step bound applies: a work item that
    // requeues itself forever would hang the run, so a drain is bounded.
    constexpr size_t kMaxDrainItems = 100000;
    if (run->wq.RunAll(kMaxDrainItems) == kMaxDrainItems && run->wq.pending_count() > 0) {
      Fail("watchdog", flowcheck::StrFormat("the work queue did not drain at the end of the "
                                            "execution: %zu work items ran and more are pending (a "
                                            "work item that requeues itself?)",
                                            kMaxDrainItems));
    }
  } else {
    run->wq.WaitIdle();
  }
}

uint64_t Sum(const Run& run, Counter c) {
  uint64_t n = 0;
  for (const auto& p : run.participants) n += p->counters.Get(c);
  return n;
}

double Elapsed(const Run& run) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - run.start).count();
}

std::string DescribeParticipants(const Run& run) {
  std::string s;
  for (const auto& p : run.participants) {
    flowcheck::StrAppendFormat(&s, "  %s: %s (%" PRIu64 " ops)\n", p->name.c_str(),
                               p->doing.load(std::memory_order_relaxed), p->counters.Get(kOps));
  }
  flowcheck::StrAppendFormat(&s, "  work queue: %zu item(s) pending\n", run.wq.pending_count());
  return s;
}

}  // namespace program
}  // namespace flowcheck
