// sched/runtime.h (internal): one controlled execution at a time: the
// logical threads, who may run, the decisions, failures and the trace hash.
// runtime.cc: an execution's life and its threads'; decide.cc: decisions
// and the entry points that reach them; describe.cc: report text. run.cc
// drives it once per schedule; api.cc forwards sched.h calls to it.
//
// Threading: everything here runs on whichever context (controller or
// logical thread) holds the one running slot, so no member needs a lock;
// every public method hides its own accesses from TSan (sanitizers.h) and
// the only happens-before edges created are a thread's start and end.
#ifndef FLOWCHECK_SCHED_RUNTIME_H_
#define FLOWCHECK_SCHED_RUNTIME_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lockcheck/logical_thread.h"
#include "lockcheck/report.h"
#include "lockcheck/schedule.h"
#include "sched/run.h"
#include "sched/sched.h"
#include "sched/strategy.h"
#include "sched/switcher.h"
#include "sched/trace_out.h"

namespace sched {
namespace internal {

// Thrown into a logical thread (or the controller's setup or AtEnd code) to
// end it early once the execution has failed.
struct Cancelled {};

enum class PointKind : uint8_t {
  kStart,
  kBeforeAcquire,
  kBeforeTryLock,
  kAfterRelease,
  kPoint,
  kYield,
  kBlock,
  kJoin,
  kSpawn,
  kFinish,
};
const char* PointKindName(PointKind kind);

struct Thread {
  class Runtime* rt = nullptr;
  int id = 0;
  std::string name;
  std::function<void()> body;
  ThreadOptions options;
  lockcheck::LogicalThread* lc = nullptr;
  Context* ctx = nullptr;
  bool started = false, finished = false, cancel = false;
  // An interrupt between two of its runs (ThreadOptions::runs): it waits to
  // be picked again, like one not yet started.
  bool dormant = false;
  // What it waits for; it is runnable again when that holds.
  const void* wait_lock = nullptr;  // a held lock it is about to take
  std::function<bool()> wait_cond;  // BlockUntil
  const char* wait_what = nullptr;
  int wait_join = -1;       // Join
  int interrupted_by = -1;  // an interrupt thread running on its CPU
  // Addresses for the start and end happens-before edges.
  char start_token = 0, join_token = 0;
};

// One decision, kept (in a ring) for the step-bound report.
struct Event {
  uint64_t step;
  int thread;  // that reached the point; -1: the controller
  PointKind kind;
  const char* lock_class;  // lockcheck class name of the lock, if any
  const char* label;
  int chosen;
};

struct Outcome {
  bool failed = false;
  bool abandoned = false;  // the strategy ended it (kAbandonExecution): no outcome
  std::string kind, line, report;
  uint64_t trace_hash = 0;
  uint64_t steps = 0;
  int threads = 0;
  std::vector<ScheduledDecision> decisions;
  std::vector<uint8_t> bytes;  // with Options::record_bytes (RunResult::bytes)
  Trace trace;  // recorded when Options::trace_out is set
};

class Runtime {
 public:
  Runtime(const Options& options, Strategy* strategy, Switcher* switcher);
  ~Runtime();

  Outcome RunExecution(const std::function<void()>& setup);

  // sched.h and the lockcheck hook; each a no-op when it does not apply.
  void OnLockPoint(lockcheck::SchedulePoint point, const void* lock);
  ThreadId Spawn(std::string name, std::function<void()> body, ThreadOptions options);
  void Point(PointKind kind, const char* label);
  void BlockUntil(const char* what, std::function<bool()> ready);
  void Join(ThreadId t);
  void AtEnd(std::function<void()> check);
  [[noreturn]] void Fail(const std::string& message);
  void OnLockcheckReport(const lockcheck::Report& report);
  int CurrentId();
  void SetStateProbe(std::function<std::string()> probe);
  // The program of the execution about to run / running (ProgramIndex).
  void set_program(uint64_t program) { program_ = program; }
  uint64_t program() const { return program_; }

 private:
  static void ThreadMain(void* arg);
  void RunBody(Thread* t);
  Context* OnFinish(Thread* t);

  // With an IgnoreScope held by the caller.
  bool Runnable(const Thread* t) const;
  uint64_t RunnableMask() const;
  int Choose(Thread* me, PointKind kind, const void* lock, const char* label);
  void Decide(Thread* me, PointKind kind, const void* lock, const char* label);
  void ThrowIfCancelled(Thread* me);
  void Hash(uint64_t word) { hash_ = (hash_ ^ word) * 0x100000001b3ull; }
  uint64_t LockWord(const void* lock);
  void SetFailure(const std::string& kind, const std::string& line, const std::string& report);
  void CancelRemaining();
  void SwitchFromController(Context* to);
  void Teardown();

  // describe.cc: report text.
  std::string DescribeThreads() const;
  std::string Label(const Thread* t) const;
  const Thread* HolderOf(const void* lock) const;
  std::string DeadlockReport() const;
  std::string StepBoundReport() const;

  // trace_record.cc: the trace (trace_out.h), when Options::trace_out is set.
  void TraceDecision(const Thread* me, PointKind kind, const void* lock, const char* label,
                     int chosen, uint64_t runnable);
  void TraceEnd();
  void TraceAfter(HeldLocks* held, std::string* state, bool* has_state);
  void TraceHeld(HeldLocks* held);

  const Options& options_;
  Strategy* const strategy_;
  Switcher* const switcher_;

  // Per execution.
  std::vector<std::unique_ptr<Thread>> threads_;
  std::vector<std::function<void()>> at_end_;
  Thread* current_ = nullptr;  // null: the controller runs
  lockcheck::LogicalThread* controller_lc_ = nullptr;
  bool deciding_ = false;  // in the strategy / a wait predicate
  bool failed_ = false;
  Outcome outcome_;
  std::string deferred_kind_, deferred_line_, deferred_report_;  // lockcheck, defer mode
  uint64_t steps_ = 0;
  uint64_t hash_ = 0;
  uint64_t program_ = 0;
  std::vector<const void*> locks_seen_;  // lock -> index: first appearance
  std::function<std::string()> probe_;   // sched::SetStateProbe
  static constexpr int kEventRing = 24;
  Event events_[kEventRing];
};

// The running Runtime, or null. Relaxed: reading it adds no edge.
extern std::atomic<Runtime*> g_runtime;

}  // namespace internal
}  // namespace sched

#endif  // FLOWCHECK_SCHED_RUNTIME_H_
