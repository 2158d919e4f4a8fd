// sched/describe.cc: the text of failure reports: every logical thread's
// state and held locks, the wait-for cycle of a deadlock, the last decisions
// before a step bound. Runs with an IgnoreScope held (runtime.h).
#include <cstdio>
#include <string>
#include <vector>

#include "lockcheck/lockdep.h"
#include "sched/runtime.h"

namespace sched {
namespace internal {

std::string Runtime::Label(const Thread* t) const { return lockcheck::LogicalThreadLabel(t->lc); }

const Thread* Runtime::HolderOf(const void* lock) const {
  for (const auto& t : threads_) {
    if (!t->finished && lockcheck::LogicalThreadHolds(t->lc, lock)) return t.get();
  }
  return nullptr;
}

std::string Runtime::DescribeThreads() const {
  std::string s = "logical threads (" + std::to_string(threads_.size()) + "):\n";
  for (const auto& p : threads_) {
    const Thread* t = p.get();
    s += "  [" + std::to_string(t->id) + "] " + Label(t);
    if (t->options.interrupts >= 0) {
      s += " (interrupt of " + Label(threads_[t->options.interrupts].get()) + ")";
    }
    s += ": ";
    if (t->finished) {
      s += t->cancel ? "ended by the scheduler" : "ended";
    } else if (t->wait_lock != nullptr && !lockcheck::ScheduleLockIsHeld(t->wait_lock)) {
      s += "about to take " + lockcheck::ScheduleLockLabel(t->wait_lock);
    } else if (t->wait_lock != nullptr) {
      const Thread* h = HolderOf(t->wait_lock);
      s += "waits for " + lockcheck::ScheduleLockLabel(t->wait_lock) + " held by " +
           (h != nullptr ? Label(h) : "a thread outside the scheduler");
    } else if (t->wait_join >= 0) {
      s += "waits to join " + Label(threads_[t->wait_join].get());
    } else if (t->wait_cond) {
      s += std::string("waits until ") + t->wait_what;
    } else if (t->interrupted_by >= 0) {
      s += "interrupted by " + Label(threads_[t->interrupted_by].get());
    } else if (t == current_) {
      s += "running";
    } else if (!t->started) {
      s += Runnable(t) ? "not started" : "not started: its CPU has IRQs off";
    } else {
      s += "runnable";
    }
    if (!t->finished || !t->cancel) {
      const std::vector<std::string> held = lockcheck::LogicalThreadHeldLocks(t->lc);
      if (held.empty()) {
        s += "; holds no locks";
      } else {
        s += "; holds " + std::to_string(held.size()) + (held.size() == 1 ? " lock:" : " locks:");
        for (const std::string& h : held) s += "\n      " + h;
      }
    }
    s += "\n";
  }
  s += "all threads known to lockcheck:\n" + lockcheck::DescribeAllThreads();
  return s;
}

std::string Runtime::DeadlockReport() const {
  // The wait-for graph: thread -> (what it waits for) -> thread.
  const int n = static_cast<int>(threads_.size());
  std::vector<int> next(n, -1);
  std::vector<std::string> via(n);
  for (const auto& p : threads_) {
    const Thread* t = p.get();
    if (t->finished) continue;
    if (t->wait_lock != nullptr && lockcheck::ScheduleLockIsHeld(t->wait_lock)) {
      const Thread* h = HolderOf(t->wait_lock);
      via[t->id] = lockcheck::ScheduleLockLabel(t->wait_lock);
      if (h != nullptr) next[t->id] = h->id;
    } else if (t->wait_join >= 0) {
      via[t->id] = "join";
      next[t->id] = t->wait_join;
    } else if (t->interrupted_by >= 0) {
      via[t->id] = "interrupted by";
      next[t->id] = t->interrupted_by;
    } else if (!t->started && t->options.interrupts >= 0) {
      via[t->id] = "IRQs on in";
      next[t->id] = t->options.interrupts;
    }
  }
  std::string cycle;
  for (int start = 0; start < n && cycle.empty(); ++start) {
    std::vector<int> seen(n, -1);
    int x = start;
    for (int i = 0; x >= 0 && seen[x] < 0; ++i) {
      seen[x] = i;
      x = next[x];
    }
    if (x < 0) continue;  // a chain, not a cycle
    int y = x;
    cycle = Label(threads_[y].get());
    do {
      cycle += " -> " + via[y] + " -> " + Label(threads_[next[y]].get());
      y = next[y];
    } while (y != x);
  }
  std::string s = "deadlock: no logical thread can run.\n";
  if (!cycle.empty()) {
    s += "wait-for cycle (thread -> what it waits for -> its holder): " + cycle + "\n";
  } else {
    s += "no wait-for cycle: some thread waits for a condition nothing can make true, or for a "
         "lock held outside the scheduler.\n";
  }
  return s + DescribeThreads();
}

std::string Runtime::StepBoundReport() const {
  std::string s = "The last decisions (step: thread at point -> thread chosen):\n";
  // Events 0..steps_ are recorded; steps_ is the decision being refused.
  const uint64_t first = steps_ + 1 > kEventRing ? steps_ + 1 - kEventRing : 0;
  for (uint64_t i = first; i <= steps_; ++i) {
    const Event& e = events_[i % kEventRing];
    s += "  " + std::to_string(e.step) + ": " +
         (e.thread >= 0 ? Label(threads_[e.thread].get()) : std::string("controller")) + " at " +
         PointKindName(e.kind);
    if (e.lock_class != nullptr) s += std::string(" ") + e.lock_class;
    if (e.label != nullptr) s += std::string(" \"") + e.label + "\"";
    s += " -> " + (e.chosen >= 0 ? Label(threads_[e.chosen].get()) : std::string("none")) + "\n";
  }
  return s + DescribeThreads();
}

}  // namespace internal
}  // namespace sched
