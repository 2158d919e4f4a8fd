// sched/replay_strategy.cc: follows a schedule file's decision list. Any
// difference between the execution and the list (a thread not runnable, a
// different runnable set, decisions left over or missing) is uncontrolled
// nondeterminism in the scenario, reported as such.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sched/strategy.h"

namespace sched {
namespace {

std::string Mask(uint64_t m) {
  std::string s = "{";
  for (; m != 0; m &= m - 1) {
    if (s.size() > 1) s += ",";
    s += std::to_string(__builtin_ctzll(m));
  }
  return s + "}";
}

class ReplayStrategy : public Strategy {
 public:
  explicit ReplayStrategy(std::vector<ScheduledDecision> decisions)
      : decisions_(std::move(decisions)) {}

  const char* name() const override { return "replay"; }

  bool BeginExecution(uint64_t index) override { return index == 0; }

  int Choose(const Decision& d, std::string* divergence) override {
    if (d.step >= decisions_.size()) {
      *divergence = "the execution needs decision " + std::to_string(d.step) +
                    " but the schedule has only " + std::to_string(decisions_.size()) +
                    " (runnable " + Mask(d.runnable) + ")";
      return -1;
    }
    const ScheduledDecision& s = decisions_[d.step];
    if (s.runnable != d.runnable) {
      *divergence = "at decision " + std::to_string(d.step) + " the runnable threads are " +
                    Mask(d.runnable) + ", the schedule recorded " + Mask(s.runnable);
      return -1;
    }
    return s.thread;
  }

  std::string Summary(uint64_t executions, bool failed) const override {
    return "flowcheck: replay: " + std::to_string(decisions_.size()) + " decisions, " +
           std::to_string(executions) + " execution" + (failed ? ", failed" : ", passed");
  }

 private:
  const std::vector<ScheduledDecision> decisions_;
};

}  // namespace

std::unique_ptr<Strategy> MakeReplayStrategy(std::vector<ScheduledDecision> decisions) {
  return std::make_unique<ReplayStrategy>(std::move(decisions));
}

}  // namespace sched
