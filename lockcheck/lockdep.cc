// lockcheck/lockdep.cc: MINIMAL first implementation (owner tracking, held
// assertions, reports, IRQ flag, schedule hook). Lock classes, the order graph,
// IRQ rules and thread descriptions are still to come (issue 3).
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/report.h"
#include "lockcheck/schedule.h"
#include "lockcheck/spinlock.h"

namespace lockcheck {
namespace {

constexpr int kMaxClasses = 256;
std::atomic<int> next_class_id{1};
const char* class_names[kMaxClasses];  // written once per class, before its id is published

std::atomic<uint32_t> next_thread_id{1};
thread_local uint32_t tls_thread_id = 0;
thread_local bool tls_irqs_off = false;
thread_local int tls_hardirq_depth = 0;

void DefaultHandler(const Report& r) {
  std::fprintf(stderr, "%s", r.ToString().c_str());
  std::abort();
}
std::atomic<ReportHandler> handler{&DefaultHandler};

std::atomic<ScheduleHook> schedule_hook{nullptr};
std::atomic<void*> schedule_arg{nullptr};

void SchedulePointHere(SchedulePoint p, const void* lock) {
  ScheduleHook h = schedule_hook.load(std::memory_order_relaxed);
  if (h != nullptr) h(p, lock, schedule_arg.load(std::memory_order_relaxed));
}

void Emit(Rule rule, const BasicSpinLock<true>* lock, std::string message) {
  Report r;
  r.rule = rule;
  r.lock_class = lock != nullptr ? lock->class_name() : "";
  r.lock = lock;
  r.message = std::move(message);
  handler.load()(r);
}

std::mutex recording_mu;
std::vector<Report>* recorded = nullptr;

}  // namespace

const char* RuleName(Rule rule) {
  switch (rule) {
    case Rule::kUnlockNotHeld: return "unlock-of-unheld-lock";
    case Rule::kUnlockNotOwner: return "unlock-by-non-owner";
    case Rule::kRecursiveLock: return "recursive-locking";
    case Rule::kRecursiveClass: return "recursive-locking-of-class";
    case Rule::kOrderInversion: return "lock-order-inversion";
    case Rule::kIrqSafety: return "inconsistent-irq-lock-state";
    case Rule::kExitWithLocksHeld: return "thread-exit-with-locks-held";
    case Rule::kDestroyHeldLock: return "held-lock-destroyed";
    case Rule::kAssertHeld: return "lockdep-assert-held-failed";
    case Rule::kAssertNotHeld: return "lockdep-assert-not-held-failed";
    case Rule::kUninitialized: return "uninitialized-lock";
  }
  return "unknown";
}

std::string Report::ToString() const {
  std::string s = "lockcheck: ";
  s += RuleName(rule);
  s += " on " + lock_class + "\n" + message + "\n";
  for (const std::string& h : held) s += "  held: " + h + "\n";
  s += stack;
  return s;
}

ReportHandler SetReportHandler(ReportHandler h) {
  return handler.exchange(h == nullptr ? &DefaultHandler : h);
}

RecordingHandler::RecordingHandler() {
  std::lock_guard<std::mutex> l(recording_mu);
  recorded = new std::vector<Report>();
  previous_ = SetReportHandler(&RecordingHandler::Record);
}
RecordingHandler::~RecordingHandler() {
  SetReportHandler(previous_);
  std::lock_guard<std::mutex> l(recording_mu);
  delete recorded;
  recorded = nullptr;
}
void RecordingHandler::Record(const Report& r) {
  std::lock_guard<std::mutex> l(recording_mu);
  if (recorded != nullptr) recorded->push_back(r);
}
std::vector<Report> RecordingHandler::reports() const {
  std::lock_guard<std::mutex> l(recording_mu);
  return *recorded;
}
int RecordingHandler::count(Rule rule) const {
  int n = 0;
  for (const Report& r : reports()) n += r.rule == rule;
  return n;
}

uint32_t CurrentThreadId() {
  if (tls_thread_id == 0) tls_thread_id = next_thread_id.fetch_add(1);
  return tls_thread_id;
}
void SetThreadName(const char*) {}
std::string DescribeAllThreads() { return ""; }
void ResetForTesting() {}

void SetScheduleHook(ScheduleHook hook, void* arg) {
  schedule_arg.store(arg, std::memory_order_relaxed);
  schedule_hook.store(hook, std::memory_order_relaxed);
}

unsigned long irq_save_and_disable() {
  unsigned long flags = tls_irqs_off ? 1 : 0;
  tls_irqs_off = true;
  return flags;
}
void irq_restore(unsigned long flags) { tls_irqs_off = flags != 0; }
void irq_disable() { tls_irqs_off = true; }
void irq_enable() { tls_irqs_off = false; }
bool irqs_disabled() { return tls_irqs_off; }
bool in_hardirq() { return tls_hardirq_depth > 0; }
HardirqScope::HardirqScope() : saved_flags_(irq_save_and_disable()) { ++tls_hardirq_depth; }
HardirqScope::~HardirqScope() {
  --tls_hardirq_depth;
  irq_restore(saved_flags_);
}

BasicSpinLock<true>::BasicSpinLock() = default;
BasicSpinLock<true>::~BasicSpinLock() {
  if (locked_.load(std::memory_order_relaxed)) {
    Emit(Rule::kDestroyHeldLock, this, "a held lock is being destroyed");
  }
}

void BasicSpinLock<true>::Init(const char* name, lock_class_key* key) {
  int id = key->id.load(std::memory_order_acquire);
  if (id == 0) {
    static std::mutex register_mu;
    std::lock_guard<std::mutex> l(register_mu);
    id = key->id.load(std::memory_order_relaxed);
    if (id == 0) {
      id = next_class_id.fetch_add(1);
      if (id >= kMaxClasses) std::abort();
      class_names[id] = name;
      key->id.store(id, std::memory_order_release);
    }
  }
  class_id_.store(id, std::memory_order_relaxed);
}

const char* BasicSpinLock<true>::class_name() const {
  int id = class_id_.load(std::memory_order_relaxed);
  return id == 0 ? "<uninitialized>" : class_names[id];
}

void BasicSpinLock<true>::Lock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  uint32_t me = CurrentThreadId();
  if (class_id_.load(std::memory_order_relaxed) == 0) {
    Emit(Rule::kUninitialized, this, "lock used before spin_lock_init");
  }
  if (owner_.load(std::memory_order_relaxed) == me) {
    Emit(Rule::kRecursiveLock, this, "this thread already holds the lock");
    return;
  }
  SchedulePointHere(SchedulePoint::kBeforeAcquire, this);
  while (locked_.exchange(true, std::memory_order_acquire)) {
    while (locked_.load(std::memory_order_relaxed)) {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
    }
  }
  owner_.store(me, std::memory_order_relaxed);
}

bool BasicSpinLock<true>::TryLock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  uint32_t me = CurrentThreadId();
  SchedulePointHere(SchedulePoint::kBeforeAcquire, this);
  if (locked_.load(std::memory_order_relaxed) ||
      locked_.exchange(true, std::memory_order_acquire)) {
    return false;
  }
  owner_.store(me, std::memory_order_relaxed);
  return true;
}

void BasicSpinLock<true>::Unlock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  uint32_t me = CurrentThreadId();
  uint32_t owner = owner_.load(std::memory_order_relaxed);
  if (owner == 0) {
    Emit(Rule::kUnlockNotHeld, this, "unlock of a lock that is not held");
    return;
  }
  if (owner != me) {
    Emit(Rule::kUnlockNotOwner, this, "unlock by a thread that does not own the lock");
    return;
  }
  owner_.store(0, std::memory_order_relaxed);
  locked_.store(false, std::memory_order_release);
  SchedulePointHere(SchedulePoint::kAfterRelease, this);
}

bool BasicSpinLock<true>::HeldByCurrentThread() const {
  return owner_.load(std::memory_order_relaxed) == CurrentThreadId();
}

void AssertHeld(const spinlock_t* lock) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (kChecksEnabled && !lock->HeldByCurrentThread()) {
    Emit(Rule::kAssertHeld, nullptr, "lockdep_assert_held failed");
  }
}
void AssertNotHeld(const spinlock_t* lock) {
  if (kChecksEnabled && lock->IsLocked() && lock->HeldByCurrentThread()) {
    Emit(Rule::kAssertNotHeld, nullptr, "lockdep_assert_not_held failed");
  }
}

}  // namespace lockcheck
