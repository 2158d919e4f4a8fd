// sched/dfs_strategy.cc: systematic, preemption-bounded depth-first search
// (CHESS, Musuvathi and Qadeer, PLDI 2007), stateless: every schedule is a
// fresh execution from the start, steered by the decision list.
//
// A preemption is a switch away from a thread that could have gone on
// (Decision::current_runnable and not yielding). Each execution replays the
// prefix of the previous one up to the deepest decision that still has an
// untried alternative within the preemption bound, takes that alternative,
// and from there on makes the non-preemptive choice (the current thread if it
// can go on, otherwise the next runnable thread after it, cyclically). Every
// schedule with at most max_preemptions preemptions is run exactly once;
// different decision lists are different executions. No partial-order
// reduction: it would be sound only with knowledge of which steps commute,
// which decision points alone (a lock's address, a label) do not give.
#include <memory>
#include <string>
#include <vector>

#include "sched/strategy.h"

namespace sched {
namespace {

class DfsStrategy : public Strategy {
 public:
  DfsStrategy(int max_preemptions, uint64_t max_executions)
      : max_preemptions_(max_preemptions), max_executions_(max_executions) {}

  const char* name() const override { return "dfs"; }

  bool BeginExecution(uint64_t index) override {
    if (index > 0 && !Backtrack()) {
      exhausted_ = true;
      return false;
    }
    if (max_executions_ != 0 && index >= max_executions_) {
      limit_hit_ = true;
      return false;
    }
    position_ = 0;
    return true;
  }

  int Choose(const Decision& d, std::string* divergence) override {
    const int preemptions = position_ == 0 ? 0 : PreemptionsAfter(position_ - 1);
    if (position_ < stack_.size()) {  // replaying the prefix
      Entry& e = stack_[position_];
      if (e.runnable != d.runnable || e.current != d.current) {
        *divergence = "dfs: decision " + std::to_string(position_) +
                      " differs from the earlier execution with the same prefix (runnable set " +
                      std::to_string(d.runnable) + " vs " + std::to_string(e.runnable) +
                      ", current thread " + std::to_string(d.current) + " vs " +
                      std::to_string(e.current) + ")";
        return -1;
      }
      ++position_;
      return e.chosen;
    }
    Entry e;
    e.runnable = d.runnable;
    e.current = d.current;
    e.free_switch = !d.current_runnable || d.yielding;
    e.preemptions_before = preemptions;
    e.chosen = DefaultChoice(d);
    e.tried = uint64_t{1} << e.chosen;
    stack_.push_back(e);
    ++position_;
    return e.chosen;
  }

  std::string Summary(uint64_t executions, bool failed) const override {
    std::string s = "flowcheck: dfs: explored " + std::to_string(executions) + " schedules";
    if (failed) return s + ", stopped at a failure";
    if (exhausted_) return s + ", space exhausted";
    return s + ", bound hit (max executions " + std::to_string(max_executions_) + ")";
  }

  bool exhausted() const override { return exhausted_; }

  std::map<std::string, std::string> Params() const override {
    return {{"max_preemptions", std::to_string(max_preemptions_)}};
  }

 private:
  struct Entry {
    uint64_t runnable = 0;
    uint64_t tried = 0;  // alternatives taken so far at this decision
    int current = -1;
    int chosen = 0;
    bool free_switch = false;  // switching away costs no preemption here
    int preemptions_before = 0;
  };

  // Preemptions used up to and including decision i.
  int PreemptionsAfter(size_t i) const {
    const Entry& e = stack_[i];
    return e.preemptions_before + (Preempts(e, e.chosen) ? 1 : 0);
  }
  static bool Preempts(const Entry& e, int t) {
    return !e.free_switch && e.current >= 0 && t != e.current;
  }

  // The current thread if it can go on (not yielding); else the first
  // runnable thread after it, cyclically.
  static int DefaultChoice(const Decision& d) {
    if (d.current >= 0 && d.current_runnable && !d.yielding) return d.current;
    const int start = d.current + 1;
    for (int i = 0; i < 64; ++i) {
      const int t = (start + i) % 64;
      if (d.runnable >> t & 1) return t;
    }
    return __builtin_ctzll(d.runnable);
  }

  // Moves to the next schedule: the deepest decision with an untried
  // alternative within the bound takes it; everything after it is dropped.
  bool Backtrack() {
    while (!stack_.empty()) {
      Entry& e = stack_.back();
      for (uint64_t m = e.runnable & ~e.tried; m != 0; m &= m - 1) {
        const int t = __builtin_ctzll(m);
        e.tried |= uint64_t{1} << t;
        const int cost = Preempts(e, t) ? 1 : 0;
        if (max_preemptions_ < 0 || e.preemptions_before + cost <= max_preemptions_) {
          e.chosen = t;
          return true;
        }
      }
      stack_.pop_back();
    }
    return false;
  }

  const int max_preemptions_;
  const uint64_t max_executions_;
  std::vector<Entry> stack_;
  size_t position_ = 0;
  bool exhausted_ = false;
  bool limit_hit_ = false;
};

}  // namespace

std::unique_ptr<Strategy> MakeDfsStrategy(int max_preemptions, uint64_t max_executions) {
  return std::make_unique<DfsStrategy>(max_preemptions, max_executions);
}

}  // namespace sched
