// sched/pct_strategy.cc: PCT, probabilistic concurrency testing (Burckhardt,
// Kothari, Musuvathi, Nagarakatte, ASPLOS 2010).
//
// Each execution gives the n threads distinct random priorities and picks
// d-1 change points uniformly among the k steps an execution takes (k is the
// largest step count seen so far; the first execution has none). At every
// decision the highest-priority runnable thread runs; at the i-th change
// point the thread that reached it drops below every initial priority (to
// i). A bug that needs d ordering constraints between threads is then hit
// with probability at least 1/(n k^(d-1)) per execution; the run prints that
// bound for its n and k. Yield drops the yielding thread below every other
// (it cannot progress until someone else runs), as shuttle's PCT does.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "sched/strategy.h"

namespace sched {
namespace {

class PctStrategy : public Strategy {
 public:
  PctStrategy(uint64_t seed, int depth, uint64_t max_executions)
      : seed_(seed), depth_(depth), max_executions_(max_executions) {}

  const char* name() const override { return "pct"; }

  bool BeginExecution(uint64_t index) override {
    if (index >= max_executions_) return false;
    rng_ = internal::Rng(internal::ExecutionSeed(seed_, index));
    priority_.clear();
    change_points_.clear();
    next_yield_priority_ = 0;
    if (max_steps_ > 0) {
      for (int i = 1; i < depth_; ++i) change_points_.push_back(rng_.Below(max_steps_));
    }
    return true;
  }

  // Initial priorities are depth_ + a random rank: the new thread takes a
  // uniformly random place among the threads so far (a random permutation
  // when all are spawned up front).
  void OnSpawn(int thread) override {
    const int n = static_cast<int>(priority_.size());
    const int rank = static_cast<int>(rng_.Below(static_cast<uint64_t>(n) + 1));
    for (int64_t& p : priority_) {
      if (p >= depth_ + rank) ++p;
    }
    priority_.resize(static_cast<size_t>(std::max(thread + 1, n + 1)), 0);
    priority_[static_cast<size_t>(thread)] = depth_ + rank;
  }

  int Choose(const Decision& d, std::string* /*divergence*/) override {
    if (d.current >= 0) {
      for (size_t i = 0; i < change_points_.size(); ++i) {
        // Change point i+1 lowers to priority i+1 (all below depth_).
        if (change_points_[i] == d.step) priority_[d.current] = static_cast<int64_t>(i) + 1;
      }
      if (d.yielding) priority_[d.current] = --next_yield_priority_;
    }
    int best = -1;
    for (uint64_t m = d.runnable; m != 0; m &= m - 1) {
      const int t = __builtin_ctzll(m);
      if (best < 0 || priority_[t] > priority_[best]) best = t;
    }
    return best;
  }

  void EndExecution(uint64_t steps, int threads) override {
    max_steps_ = std::max(max_steps_, steps);
    max_threads_ = std::max(max_threads_, threads);
  }

  std::string Summary(uint64_t executions, bool failed) const override {
    const double n = max_threads_, k = static_cast<double>(max_steps_);
    const double denominator = n * std::pow(k, depth_ - 1);
    char bound[64];
    std::snprintf(bound, sizeof bound, "%.3g", denominator > 0 ? 1.0 / denominator : 0.0);
    return "flowcheck: pct: bound 1/(n k^(d-1)) = 1/(" + std::to_string(max_threads_) + "*" +
           std::to_string(max_steps_) + "^" + std::to_string(depth_ - 1) + ") = " + bound +
           " per execution (n=" + std::to_string(max_threads_) +
           " threads, k=" + std::to_string(max_steps_) + " steps, d=" + std::to_string(depth_) +
           "); " + std::to_string(executions) + " executions (seed " + std::to_string(seed_) + ")" +
           (failed ? ", stopped at a failure" : ", none failed");
  }

  std::map<std::string, std::string> Params() const override {
    return {{"depth", std::to_string(depth_)}};
  }

 private:
  const uint64_t seed_;
  const int depth_;
  const uint64_t max_executions_;
  internal::Rng rng_{0};
  std::vector<int64_t> priority_;        // by thread id
  std::vector<uint64_t> change_points_;  // steps
  int64_t next_yield_priority_ = 0;      // below every change-point priority
  uint64_t max_steps_ = 0;               // k
  int max_threads_ = 0;                  // n
};

}  // namespace

std::unique_ptr<Strategy> MakePctStrategy(uint64_t seed, int depth, uint64_t max_executions) {
  return std::make_unique<PctStrategy>(seed, depth, max_executions);
}

}  // namespace sched
