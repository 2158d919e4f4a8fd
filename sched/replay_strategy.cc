// sched/replay_strategy.cc: follows a schedule file's decision list, and
// notes the first decision where the execution differs from it (a different
// runnable set, decisions left over or missing). What that means is the
// run's call (run.cc): nondeterminism when the code is the same, a changed
// code's own behaviour otherwise.
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
    (void)divergence;  // never refuses: the run judges the divergence
    if (d.step >= decisions_.size()) {
      Diverge(d.step, "the execution needs decision " + std::to_string(d.step) +
                          " but the schedule has only " + std::to_string(decisions_.size()) +
                          " (runnable " + Mask(d.runnable) + ")");
    } else if (decisions_[d.step].runnable != d.runnable) {
      Diverge(d.step, "at decision " + std::to_string(d.step) + " the runnable threads are " +
                          Mask(d.runnable) + ", the schedule recorded " +
                          Mask(decisions_[d.step].runnable));
    }
    if (d.step < decisions_.size() && (d.runnable >> decisions_[d.step].thread & 1)) {
      return decisions_[d.step].thread;
    }
    if (d.current_runnable) return d.current;
    return __builtin_ctzll(d.runnable);
  }

  bool Divergence(uint64_t* step, std::string* how) const override {
    if (!diverged_) return false;
    *step = divergence_step_;
    *how = divergence_;
    return true;
  }

  std::string Summary(uint64_t executions, bool failed) const override {
    return "flowcheck: replay: " + std::to_string(decisions_.size()) + " decisions, " +
           std::to_string(executions) + " execution" + (failed ? ", failed" : ", passed");
  }

 private:
  void Diverge(uint64_t step, std::string how) {
    if (diverged_) return;
    diverged_ = true;
    divergence_step_ = step;
    divergence_ = std::move(how);
  }

  const std::vector<ScheduledDecision> decisions_;
  bool diverged_ = false;
  uint64_t divergence_step_ = 0;
  std::string divergence_;
};

}  // namespace

std::unique_ptr<Strategy> MakeReplayStrategy(std::vector<ScheduledDecision> decisions) {
  return std::make_unique<ReplayStrategy>(std::move(decisions));
}

}  // namespace sched
