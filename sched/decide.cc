// sched/decide.cc: the decisions of runtime.h: who may run, asking the
// strategy, hashing the trace, switching; and the entry points that reach a
// decision (lockcheck's hook, sched::Point, Yield, BlockUntil, Join), and the
// other calls sched.h forwards here (AtEnd, Fail, lockcheck reports).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <utility>

#include "lockcheck/logical_thread.h"
#include "sched/runtime.h"
#include "sched/sanitizers.h"

namespace sched {
namespace internal {

bool Runtime::Runnable(const Thread* t) const {
  if (t->finished || t->interrupted_by >= 0) return false;
  if ((!t->started || t->dormant) && t->options.interrupts >= 0) {
    const Thread* target = threads_[t->options.interrupts].get();
    if (!target->finished &&
        (target->interrupted_by >= 0 || !lockcheck::LogicalThreadIrqsOn(target->lc))) {
      return false;
    }
  }
  if (t->wait_lock != nullptr) return !lockcheck::ScheduleLockIsHeld(t->wait_lock);
  if (t->wait_join >= 0) return threads_[t->wait_join]->finished;
  if (t->wait_cond) return t->wait_cond();
  return true;
}

uint64_t Runtime::RunnableMask() const {
  uint64_t mask = 0;
  for (const auto& t : threads_) {
    if (Runnable(t.get())) mask |= uint64_t{1} << t->id;
  }
  return mask;
}

uint64_t Runtime::LockWord(const void* lock) {
  if (lock == nullptr) return 0;
  for (size_t i = 0; i < locks_seen_.size(); ++i) {
    if (locks_seen_[i] == lock) return i + 1;
  }
  locks_seen_.push_back(lock);
  // First appearance: also hash its class name (stable across processes).
  for (const char* c = lockcheck::ScheduleLockClassName(lock); *c != '\0'; ++c) {
    Hash(static_cast<unsigned char>(*c));
  }
  return locks_seen_.size();
}

// Picks the next thread; -1 after recording a failure (deadlock, step bound,
// nondeterminism).
int Runtime::Choose(Thread* me, PointKind kind, const void* lock, const char* label) {
  deciding_ = true;
  uint64_t runnable = RunnableMask();
  deciding_ = false;
  // A yielding thread cannot progress until another runs: while any other
  // can, it is not a candidate (CHESS's fairness for spin loops; without it
  // a systematic search would spin in every yield loop up to the step bound).
  if (kind == PointKind::kYield && (runnable & ~(uint64_t{1} << me->id)) != 0) {
    runnable &= ~(uint64_t{1} << me->id);
  }
  Event& ev = events_[steps_ % kEventRing];
  ev = Event{steps_, me != nullptr ? me->id : -1,
             kind,   lock != nullptr ? lockcheck::ScheduleLockClassName(lock) : nullptr,
             label,  -1};
  if (runnable == 0) {
    bool waiting = false;
    for (const auto& t : threads_) waiting |= !t->finished;
    if (waiting) SetFailure("deadlock", "nothing can run and some threads wait", DeadlockReport());
    return -1;
  }
  if (steps_ >= options_.max_steps) {
    SetFailure("step-bound",
               "the execution did not end within " + std::to_string(options_.max_steps) +
                   " decisions (max_steps): a livelock, or a thread starves",
               StepBoundReport());
    return -1;
  }
  Decision d;
  d.step = steps_;
  d.current = me != nullptr ? me->id : -1;
  d.current_runnable = me != nullptr && ((runnable >> me->id) & 1);
  d.yielding = kind == PointKind::kYield;
  d.runnable = runnable;
  d.num_threads = static_cast<int>(threads_.size());
  std::string divergence;
  deciding_ = true;
  const int c = strategy_->Choose(d, &divergence);
  deciding_ = false;
  if (c == kAbandonExecution) {
    failed_ = true;  // ends the threads as a failure would, but is none
    outcome_.abandoned = true;
    return -1;
  }
  if (c < 0 || c >= 64 || !((runnable >> c) & 1)) {
    if (divergence.empty()) divergence = "the strategy chose a thread that cannot run";
    SetFailure("nondeterminism", "uncontrolled nondeterminism: " + divergence,
               "The execution did not follow the decision list it was given: something in the\n"
               "scenario is not a function of the schedule (state kept from an earlier\n"
               "execution, time, addresses, an uncontrolled thread).\n" +
                   DescribeThreads());
    return -1;
  }
  ev.chosen = c;
  if (outcome_.trace.recording) TraceDecision(me, kind, lock, label, c, runnable);
  ++steps_;
  outcome_.decisions.push_back({c, runnable});
  if (options_.record_bytes) outcome_.bytes.push_back(ByteFor(d, c));
  Hash(static_cast<uint64_t>(kind) | static_cast<uint64_t>(d.current + 1) << 8 |
       static_cast<uint64_t>(c) << 16 | LockWord(lock) << 24);
  Hash(runnable);
  for (const char* p = label; p != nullptr && *p != '\0'; ++p) Hash(static_cast<unsigned char>(*p));
  Thread* next = threads_[c].get();
  if (!next->started || next->dormant) {
    next->started = true;
    next->dormant = false;
    if (next->options.interrupts >= 0) {
      Thread* target = threads_[next->options.interrupts].get();
      if (!target->finished) target->interrupted_by = c;
    }
  }
  return c;
}

void Runtime::ThrowIfCancelled(Thread* me) {
  if (me->cancel || failed_) {
    me->cancel = true;
    throw Cancelled();
  }
}

// A decision point of `me`, the running thread: choose, and switch if the
// choice is another thread. Returns when `me` runs again.
void Runtime::Decide(Thread* me, PointKind kind, const void* lock, const char* label) {
  ThrowIfCancelled(me);
  const int c = Choose(me, kind, lock, label);
  if (c < 0) ThrowIfCancelled(me);  // a failure was recorded
  if (c != me->id) {
    current_ = threads_[c].get();
    switcher_->Switch(me->ctx, threads_[c]->ctx);
    lockcheck::SwitchLogicalThread(me->lc);
  }
  ThrowIfCancelled(me);
}

void Runtime::OnLockPoint(lockcheck::SchedulePoint point, const void* lock) {
  IgnoreScope ignore;
  Thread* me = current_;
  if (me == nullptr || deciding_) return;
  const bool wait =
      point == lockcheck::SchedulePoint::kBeforeAcquire && lockcheck::ScheduleLockIsHeld(lock);
  if (me->cancel && std::uncaught_exceptions() > 0) {
    // Unwinding after a cancel: no more decisions. A destructor that must
    // wait for a lock cannot be run on one OS thread.
    if (wait) {
      std::fprintf(stderr, "flowcheck: sched: %s waits for a lock while being cancelled\n",
                   Label(me).c_str());
      std::abort();
    }
    return;
  }
  const PointKind kind =
      point == lockcheck::SchedulePoint::kBeforeAcquire   ? PointKind::kBeforeAcquire
      : point == lockcheck::SchedulePoint::kBeforeTryLock ? PointKind::kBeforeTryLock
                                                          : PointKind::kAfterRelease;
  // A thread about to take a lock can go on only while the lock is free: if
  // it is preempted here, another thread may take the lock before it runs
  // again (then it waits, with no busy loop).
  if (kind == PointKind::kBeforeAcquire) me->wait_lock = lock;
  if (wait) {
    const Thread* holder = HolderOf(lock);
    lockcheck::SetLogicalThreadWaitingFor(me->lc, lock, holder != nullptr ? holder->lc : nullptr);
  }
  struct ClearWait {
    Thread* t;
    bool waited;
    ~ClearWait() {
      t->wait_lock = nullptr;
      if (waited) lockcheck::SetLogicalThreadWaitingFor(t->lc, nullptr, nullptr);
    }
  } clear{me, wait};
  Decide(me, kind, lock, nullptr);
}

void Runtime::Point(PointKind kind, const char* label) {
  IgnoreScope ignore;
  Thread* me = current_;
  if (me == nullptr || deciding_) return;
  if (me->cancel && std::uncaught_exceptions() > 0) return;
  Decide(me, kind, nullptr, label);
}

void Runtime::BlockUntil(const char* what, std::function<bool()> ready) {
  IgnoreScope ignore;
  Thread* me = current_;
  if (me == nullptr || deciding_) return;
  me->wait_cond = std::move(ready);
  me->wait_what = what;
  struct Clear {
    Thread* t;
    ~Clear() { t->wait_cond = nullptr; }
  } clear{me};
  Decide(me, PointKind::kBlock, nullptr, what);
}

void Runtime::Join(ThreadId t) {
  char* token = nullptr;
  {
    IgnoreScope ignore;
    Thread* me = current_;
    if (me == nullptr || t < 0 || t >= static_cast<int>(threads_.size()) || t == me->id) return;
    me->wait_join = t;
    struct Clear {
      Thread* t;
      ~Clear() { t->wait_join = -1; }
    } clear{me};
    Decide(me, PointKind::kJoin, nullptr, "join");
    token = &threads_[t]->join_token;
  }
  TsanAcquire(token);
}

void Runtime::AtEnd(std::function<void()> check) {
  IgnoreScope ignore;
  at_end_.push_back(std::move(check));
}

void Runtime::Fail(const std::string& message) {
  IgnoreScope ignore;
  SetFailure(
      "check",
      (current_ != nullptr ? Label(current_) : std::string("the controller")) + ": " + message,
      DescribeThreads());
  if (current_ != nullptr) current_->cancel = true;
  throw Cancelled();
}

void Runtime::OnLockcheckReport(const lockcheck::Report& report) {
  IgnoreScope ignore;
  if (failed_) return;  // the first failure wins; later reports are its echoes
  const std::string line = std::string(lockcheck::RuleName(report.rule)) + " on " +
                           report.lock_class + " in " + report.thread;
  const std::string text = report.ToString() + "\n" + DescribeThreads();
  if (options_.lockcheck_reports != LockcheckReports::kEnd) {
    if (deferred_kind_.empty()) {
      deferred_kind_ = "lockcheck";
      deferred_line_ = line;
      deferred_report_ = text;
    }
    return;
  }
  SetFailure("lockcheck", line, text);
}

void Runtime::SetStateProbe(std::function<std::string()> probe) {
  IgnoreScope ignore;
  probe_ = std::move(probe);
}

int Runtime::CurrentId() {
  IgnoreScope ignore;
  return current_ != nullptr ? current_->id : -1;
}

}  // namespace internal
}  // namespace sched
