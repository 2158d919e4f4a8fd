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
//
// Programs: the scenario's programs 0..num_programs-1 (sched::ProgramIndex)
// are explored one after the other, each exhaustively. Shards (Bazel's test
// sharding): a schedule belongs to the unit (program, the thread chosen at
// its first decision, which thread starts), every unit to one shard. Every
// schedule has exactly one first decision, so the units partition the
// schedules exactly, and no schedule runs in two shards: where none of a
// program's first alternatives is the shard's, the execution is abandoned
// at that decision, before any of the program's threads ran.
#include <memory>
#include <string>
#include <vector>

#include "sched/strategy.h"

namespace sched {
namespace {

class DfsStrategy : public Strategy {
 public:
  DfsStrategy(const DfsOptions& o) : o_(o) {}

  const char* name() const override { return "dfs"; }

  bool BeginExecution(uint64_t index) override {
    if (index > 0 && !Advance()) {
      exhausted_ = true;
      return false;
    }
    if (o_.max_executions != 0 && schedules_ >= o_.max_executions) {
      limit_hit_ = true;
      return false;
    }
    position_ = 0;
    counted_ = true;
    return true;
  }

  uint64_t Program(uint64_t execution) const override {
    (void)execution;
    return program_;
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
    if (position_ == 0) {
      // The execution's first decision (which thread starts, on the
      // controller: nothing of the program has run yet). Its alternatives
      // are the units the shards divide; other shards' count as tried.
      const uint64_t ours = Ours(Allowed(e));
      if (ours == 0) {
        counted_ = false;
        return kAbandonExecution;  // nothing of this program is ours
      }
      if (!(ours >> e.chosen & 1)) e.chosen = __builtin_ctzll(ours);
      e.tried = (Allowed(e) & ~ours) | uint64_t{1} << e.chosen;
    }
    stack_.push_back(e);
    ++position_;
    return e.chosen;
  }

  void EndExecution(uint64_t steps, int threads) override {
    (void)steps;
    (void)threads;
    // An execution without a decision (no thread) is the unit (program, -1).
    if (counted_ && position_ == 0 && !OwnsUnit(-1)) counted_ = false;
    if (counted_) ++schedules_;
  }

  bool Counted() const override { return counted_; }

  std::string Summary(uint64_t executions, bool failed) const override {
    (void)executions;  // schedules_ counts this shard's complete schedules only
    const uint64_t programs = exhausted_ ? o_.num_programs : program_ + 1;
    std::string s = "flowcheck: dfs: explored " + std::to_string(programs) + " program" +
                    (programs == 1 ? "" : "s") + " x " + std::to_string(schedules_) + " schedules";
    if (o_.shard_count > 1) {
      s += " (shard " + std::to_string(o_.shard_index) + " of " + std::to_string(o_.shard_count) +
           ")";
    }
    if (failed) return s + ", stopped at a failure";
    if (exhausted_) return s + ", space exhausted";
    if (limit_hit_) {
      return s + ", stopped by the execution limit (" + std::to_string(o_.max_executions) +
             ") in program " + std::to_string(program_);
    }
    return s + ", stopped by the time limit in program " + std::to_string(program_);
  }

  bool exhausted() const override { return exhausted_; }

  std::map<std::string, std::string> Params() const override {
    std::map<std::string, std::string> p = {
        {"max_preemptions", std::to_string(o_.max_preemptions)}};
    if (o_.num_programs > 1) p["program"] = std::to_string(program_);
    return p;
  }

 private:
  struct Entry {
    uint64_t runnable = 0;
    uint64_t tried = 0;  // alternatives taken (or left to other shards) so far
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
  // The threads `e` may choose within the preemption bound.
  uint64_t Allowed(const Entry& e) const {
    uint64_t allowed = 0;
    for (uint64_t m = e.runnable; m != 0; m &= m - 1) {
      const int t = __builtin_ctzll(m);
      const int cost = Preempts(e, t) ? 1 : 0;
      if (o_.max_preemptions < 0 || e.preemptions_before + cost <= o_.max_preemptions) {
        allowed |= uint64_t{1} << t;
      }
    }
    return allowed;
  }
  // The unit (program, first-branch alternative `t`, -1 for none) belongs
  // to shard (program * 65 + t + 1) mod shard_count.
  bool OwnsUnit(int t) const {
    return (program_ * 65 + static_cast<uint64_t>(t + 1)) % o_.shard_count == o_.shard_index;
  }
  uint64_t Ours(uint64_t alternatives) const {
    uint64_t ours = 0;
    for (uint64_t m = alternatives; m != 0; m &= m - 1) {
      const int t = __builtin_ctzll(m);
      if (OwnsUnit(t)) ours |= uint64_t{1} << t;
    }
    return ours;
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

  // The next schedule of this program, else the first of the next program.
  bool Advance() {
    if (Backtrack()) return true;
    stack_.clear();
    return ++program_ < o_.num_programs;
  }

  // Moves to the next schedule: the deepest decision with an untried
  // alternative within the bound takes it; everything after it is dropped.
  bool Backtrack() {
    while (!stack_.empty()) {
      Entry& e = stack_.back();
      for (uint64_t m = Allowed(e) & ~e.tried; m != 0; m &= m - 1) {
        const int t = __builtin_ctzll(m);
        e.tried |= uint64_t{1} << t;
        e.chosen = t;
        return true;
      }
      stack_.pop_back();
    }
    return false;
  }

  const DfsOptions o_;
  std::vector<Entry> stack_;
  size_t position_ = 0;
  uint64_t program_ = 0;
  uint64_t schedules_ = 0;    // counted (this shard's, complete) schedules
  bool counted_ = true;       // the current execution is one of this shard's schedules
  bool exhausted_ = false;
  bool limit_hit_ = false;
};

}  // namespace

std::unique_ptr<Strategy> MakeDfsStrategy(const DfsOptions& options) {
  return std::make_unique<DfsStrategy>(options);
}

}  // namespace sched
