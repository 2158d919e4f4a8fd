// sched/random_strategy.cc: a uniformly random runnable thread at every
// decision. The baseline: finds shallow bugs quickly, no guarantee for deep
// ones (pct gives one).
#include <cstdio>
#include <memory>
#include <string>

#include "sched/strategy.h"

namespace sched {
namespace {

class RandomStrategy : public Strategy {
 public:
  RandomStrategy(uint64_t seed, uint64_t max_executions)
      : seed_(seed), max_executions_(max_executions) {}

  const char* name() const override { return "random"; }

  bool BeginExecution(uint64_t index) override {
    if (index >= max_executions_) return false;
    rng_ = internal::Rng(internal::ExecutionSeed(seed_, index));
    return true;
  }

  int Choose(const Decision& d, std::string* /*divergence*/) override {
    const int n = internal::CountThreads(d.runnable);
    return internal::NthThread(d.runnable, static_cast<int>(rng_.Below(n)));
  }

  std::string Summary(uint64_t executions, bool failed) const override {
    return "flowcheck: random: " + std::to_string(executions) + " executions (seed " +
           std::to_string(seed_) + ")" + (failed ? ", stopped at a failure" : ", none failed");
  }

 private:
  const uint64_t seed_;
  const uint64_t max_executions_;
  internal::Rng rng_{0};
};

}  // namespace

std::unique_ptr<Strategy> MakeRandomStrategy(uint64_t seed, uint64_t max_executions) {
  return std::make_unique<RandomStrategy>(seed, max_executions);
}

}  // namespace sched
