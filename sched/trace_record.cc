// sched/trace_record.cc: recording the trace of trace_out.h inside the
// runtime. Called with an IgnoreScope held, at a decision (every logical
// thread stopped) or when the controller has the slot back at the end.
#include <string>
#include <utility>
#include <vector>

#include "lockcheck/logical_thread.h"
#include "sched/runtime.h"

namespace sched {
namespace internal {
namespace {

// "&rcd->exp_lock (0x7ffd5b1c2a40) acquired at f()" -> "&rcd->exp_lock":
// only the class is stable from run to run (and what the timeline colours).
std::string ClassOf(const std::string& held) {
  const size_t cut = held.find(" (0x");
  return cut == std::string::npos ? held : held.substr(0, cut);
}

void AddClass(std::vector<std::string>* held, const std::string& cls) {
  for (const std::string& h : *held) {
    if (h == cls) return;
  }
  held->push_back(cls);
}

}  // namespace

void Runtime::TraceAfter(HeldLocks* held, std::string* state, bool* has_state) {
  TraceHeld(held);
  *has_state = static_cast<bool>(probe_);
  if (probe_) {
    deciding_ = true;  // a lock taken by a (misbehaving) probe is no decision
    *state = probe_();
    deciding_ = false;
  }
}

void Runtime::TraceHeld(HeldLocks* held) {
  // Adds what is held now to what was held before (outermost first): a lock
  // taken by the step that ran is held during it.
  held->resize(threads_.size());
  for (size_t i = 0; i < threads_.size(); ++i) {
    for (const std::string& h : lockcheck::LogicalThreadHeldLocks(threads_[i]->lc)) {
      AddClass(&(*held)[i], ClassOf(h));
    }
  }
}

void Runtime::TraceDecision(const Thread* me, PointKind kind, const void* lock, const char* label,
                            int chosen, uint64_t runnable) {
  Trace& tr = outcome_.trace;
  // What the previous step left (or the setup, before the first).
  if (tr.steps.empty()) {
    TraceAfter(&tr.initial_held, &tr.initial_state, &tr.has_initial_state);
  } else {
    TraceStep& prev = tr.steps.back();
    TraceAfter(&prev.held, &prev.state, &prev.has_state);
  }
  TraceStep s;
  s.step = steps_;
  s.thread = me != nullptr ? me->id : -1;
  s.kind = PointKindName(kind);
  s.label = label != nullptr ? label : "";
  s.lock = lock != nullptr ? lockcheck::ScheduleLockClassName(lock) : "";
  s.chosen = chosen;
  s.runnable = runnable;
  // Held during the step: what is held now, the lock the chosen thread
  // stopped before (it takes it first thing), and (TraceAfter, at the next
  // decision) what is held then.
  TraceHeld(&s.held);
  const Thread* next = threads_[chosen].get();
  if (next->wait_lock != nullptr) {
    AddClass(&s.held[chosen], lockcheck::ScheduleLockClassName(next->wait_lock));
  }
  tr.steps.push_back(std::move(s));
}

void Runtime::TraceEnd() {
  Trace& tr = outcome_.trace;
  if (tr.steps.empty()) {
    TraceAfter(&tr.initial_held, &tr.initial_state, &tr.has_initial_state);
  } else {
    TraceStep& last = tr.steps.back();
    TraceAfter(&last.held, &last.state, &last.has_state);
  }
}

}  // namespace internal
}  // namespace sched
