// sched/runtime.cc: see runtime.h. The hand-off protocol: the context that
// holds the running slot decides (Choose) and switches; `current_` always
// names the logical thread that runs (null: the controller), and every
// context, when it resumes, makes its own lockcheck record current.
#include "sched/runtime.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <utility>

#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"
#include "sched/sanitizers.h"

namespace sched {
namespace internal {

std::atomic<Runtime*> g_runtime{nullptr};

const char* PointKindName(PointKind kind) {
  switch (kind) {
    case PointKind::kStart:
      return "start";
    case PointKind::kBeforeAcquire:
      return "lock";
    case PointKind::kBeforeTryLock:
      return "trylock";
    case PointKind::kAfterRelease:
      return "unlock";
    case PointKind::kPoint:
      return "point";
    case PointKind::kYield:
      return "yield";
    case PointKind::kBlock:
      return "block";
    case PointKind::kJoin:
      return "join";
    case PointKind::kSpawn:
      return "spawn";
    case PointKind::kFinish:
      return "finish";
  }
  return "?";
}

Runtime::Runtime(const Options& options, Strategy* strategy, Switcher* switcher)
    : options_(options), strategy_(strategy), switcher_(switcher) {}

Runtime::~Runtime() = default;

Outcome Runtime::RunExecution(const std::function<void()>& setup) {
  {
    IgnoreScope ignore;
    threads_.clear();
    at_end_.clear();
    current_ = nullptr;
    failed_ = false;
    outcome_ = Outcome();
    outcome_.trace.recording = !options_.trace_out.empty();
    probe_ = nullptr;
    deferred_kind_.clear();
    steps_ = 0;
    hash_ = 0xcbf29ce484222325ull;
    locks_seen_.clear();
    controller_lc_ = lockcheck::CurrentLogicalThread();
  }
  lockcheck::ResetForTesting();
  try {
    setup();
  } catch (const Cancelled&) {
  }
  // Everything the setup did happens before every thread's start.
  for (auto& t : threads_) TsanRelease(&t->start_token);
  int first = -1;
  {
    IgnoreScope ignore;
    if (!failed_ && !threads_.empty()) first = Choose(nullptr, PointKind::kStart, nullptr, nullptr);
    if (first >= 0) current_ = threads_[first].get();
  }
  if (first >= 0) SwitchFromController(threads_[first]->ctx);
  if (outcome_.trace.recording) {
    IgnoreScope ignore;
    TraceEnd();  // the state where the last thread stopped, before any unwinding
  }
  CancelRemaining();
  // Every thread has ended: their whole runs happen before the checks.
  for (auto& t : threads_) TsanAcquire(&t->join_token);
  for (size_t i = 0; i < at_end_.size() && !failed_; ++i) {
    try {
      at_end_[i]();
    } catch (const Cancelled&) {
    }
  }
  Teardown();
  if (!failed_ && !deferred_kind_.empty() && options_.lockcheck_reports == LockcheckReports::kDefer) {
    SetFailure(deferred_kind_, deferred_line_, deferred_report_);
  }
  IgnoreScope ignore;
  Hash(failed_ ? 0xfa11 : 0x9a55);
  for (char c : outcome_.kind) Hash(static_cast<unsigned char>(c));
  outcome_.failed = failed_ && !outcome_.abandoned;
  outcome_.trace_hash = hash_;
  probe_ = nullptr;  // the scenario's state goes with the execution
  outcome_.steps = steps_;
  return std::move(outcome_);
}

// Resumes every thread that started and did not end with `cancel` set: it
// throws Cancelled from its decision point, unwinds and ends.
void Runtime::CancelRemaining() {
  for (size_t i = 0; i < threads_.size(); ++i) {
    Thread* t = threads_[i].get();
    {
      IgnoreScope ignore;
      if (!t->started || t->finished) continue;
      t->cancel = true;
      current_ = t;
    }
    SwitchFromController(t->ctx);
  }
}

void Runtime::SwitchFromController(Context* to) {
  IgnoreScope ignore;
  switcher_->Switch(switcher_->controller(), to);
  lockcheck::SwitchLogicalThread(controller_lc_);
}

void Runtime::Teardown() {
  IgnoreScope ignore;
  // Destroying the state may report locks a cancelled thread still held:
  // OnLockcheckReport drops them, as echoes of the failure.
  outcome_.threads = static_cast<int>(threads_.size());
  for (auto& t : threads_) {
    switcher_->Destroy(t->ctx);
    lockcheck::DestroyLogicalThread(t->lc);
  }
  threads_.clear();  // the bodies, and with them the scenario's state
  at_end_.clear();
}

ThreadId Runtime::Spawn(std::string name, std::function<void()> body, ThreadOptions options) {
  Thread* t = nullptr;
  bool dynamic = false;
  {
    IgnoreScope ignore;
    dynamic = current_ != nullptr;
    if (threads_.size() >= static_cast<size_t>(kMaxThreads)) {
      SetFailure("check", "more than " + std::to_string(kMaxThreads) + " threads", "");
      throw Cancelled();
    }
    auto owned = std::make_unique<Thread>();
    t = owned.get();
    t->rt = this;
    t->id = static_cast<int>(threads_.size());
    t->name = std::move(name);
    t->body = std::move(body);
    t->options = options;
    t->lc = lockcheck::CreateLogicalThread(t->name.c_str());
    t->ctx = switcher_->Create(&Runtime::ThreadMain, t, t->name.c_str());
    threads_.push_back(std::move(owned));
    if (outcome_.trace.recording) outcome_.trace.threads.push_back({t->name, options.interrupts});
    strategy_->OnSpawn(t->id);
    Hash(0x5ba3);
    for (char c : t->name) Hash(static_cast<unsigned char>(c));
  }
  if (dynamic) {
    TsanRelease(&t->start_token);
    Point(PointKind::kSpawn, "spawn");
  }
  return t->id;
}

void Runtime::ThreadMain(void* arg) {
  Thread* t = static_cast<Thread*>(arg);
  Runtime* rt;
  {
    IgnoreScope ignore;
    rt = t->rt;
    lockcheck::SwitchLogicalThread(t->lc);
  }
  TsanAcquire(&t->start_token);
  rt->RunBody(t);
  TsanRelease(&t->join_token);
  Context* from;
  Context* next;
  Switcher* switcher;
  {
    IgnoreScope ignore;
    from = t->ctx;
    next = rt->OnFinish(t);
    switcher = rt->switcher_;
    lockcheck::SwitchLogicalThread(nullptr);
  }
  switcher->Finish(from, next);
}

void Runtime::RunBody(Thread* t) {
  bool cancelled = false;
  int interrupts, runs;
  {
    IgnoreScope ignore;
    interrupts = t->options.interrupts;
    runs = t->options.runs < 1 ? 1 : t->options.runs;
  }
  try {
    if (interrupts >= 0) {
      for (int run = 1;; ++run) {
        {
          lockcheck::HardirqScope irq;
          t->body();
        }
        if (run >= runs) break;
        // Return from the interrupt: the interrupted thread may run again,
        // and this one waits, dormant, to be picked for its next run. A
        // yield: handing back is no preemption (dfs's bound counts none).
        {
          IgnoreScope ignore;
          t->dormant = true;
          Thread* target = threads_[interrupts].get();
          if (target->interrupted_by == t->id) target->interrupted_by = -1;
        }
        Point(PointKind::kYield, "irq return");
      }
    } else {
      t->body();
    }
  } catch (const Cancelled&) {
    cancelled = true;
  } catch (const std::exception& e) {
    IgnoreScope ignore;
    SetFailure("exception", Label(t) + " let an exception escape: " + e.what(), DescribeThreads());
  } catch (...) {
    IgnoreScope ignore;
    SetFailure("exception", Label(t) + " let an exception of unknown type escape",
               DescribeThreads());
  }
  if (!cancelled) lockcheck::CheckLogicalThreadExit();
}

// The thread's last decision. Returns the context to hand over to.
Context* Runtime::OnFinish(Thread* t) {
  t->finished = true;
  if (t->options.interrupts >= 0) {
    Thread* target = threads_[t->options.interrupts].get();
    if (target->interrupted_by == t->id) target->interrupted_by = -1;
  }
  int next = -1;
  if (!failed_ && !t->cancel) next = Choose(t, PointKind::kFinish, nullptr, nullptr);
  current_ = next >= 0 ? threads_[next].get() : nullptr;
  return next >= 0 ? threads_[next]->ctx : switcher_->controller();
}

void Runtime::SetFailure(const std::string& kind, const std::string& line,
                         const std::string& report) {
  if (failed_) return;
  failed_ = true;
  outcome_.kind = kind;
  outcome_.line = line;
  outcome_.report = report;
  if (outcome_.trace.recording) {
    Trace& tr = outcome_.trace;
    tr.failed = true;
    tr.failure_kind = kind;
    tr.failure_line = line;
    tr.failure_after_step = static_cast<int64_t>(steps_) - 1;
    tr.failure_thread = current_ != nullptr ? current_->id : -1;
  }
  if (!deferred_kind_.empty() && kind != "lockcheck") {
    outcome_.report += "\nlockcheck also reported, earlier in this execution:\n" + deferred_report_;
  }
}

}  // namespace internal
}  // namespace sched
