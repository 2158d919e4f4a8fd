// sched/guided_strategy.cc: follows a decision list where it still fits, for
// the minimizer (minimize.h). Unlike replay it never diverges: when the
// recorded thread is not runnable (the candidate changed the ops or the
// decisions), or the list is used up, the current thread goes on if it can,
// else the lowest runnable thread runs. So a shortened or edited list always
// gives a complete execution, whose real decisions are then re-recorded.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sched/strategy.h"

namespace sched {
namespace {

class GuidedStrategy : public Strategy {
 public:
  explicit GuidedStrategy(std::vector<ScheduledDecision> decisions)
      : decisions_(std::move(decisions)) {}

  const char* name() const override { return "guided"; }

  bool BeginExecution(uint64_t index) override { return index == 0; }

  int Choose(const Decision& d, std::string*) override {
    if (d.step < decisions_.size()) {
      const int want = decisions_[d.step].thread;
      if (want >= 0 && want < 64 && (d.runnable >> want & 1)) return want;
    }
    if (d.current >= 0 && d.current_runnable && (d.runnable >> d.current & 1)) return d.current;
    return __builtin_ctzll(d.runnable);
  }

  std::string Summary(uint64_t executions, bool failed) const override {
    return "flowcheck: guided: " + std::to_string(decisions_.size()) + " guide decisions, " +
           std::to_string(executions) + " execution" + (failed ? ", failed" : ", passed");
  }

 private:
  const std::vector<ScheduledDecision> decisions_;
};

}  // namespace

std::unique_ptr<Strategy> MakeGuidedStrategy(std::vector<ScheduledDecision> decisions) {
  return std::make_unique<GuidedStrategy>(std::move(decisions));
}

}  // namespace sched
