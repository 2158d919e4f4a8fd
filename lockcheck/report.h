// lockcheck/report.h: what lockcheck reports, and who receives the reports.
//
// Every rule violation produces exactly one Report, handed to the installed
// handler. The default handler prints the report (and every thread's held
// locks) to stderr and aborts, so a violation is a crash that libFuzzer, TSan
// runs and gtest death tests all see. Tests that want to inspect reports
// install a RecordingHandler.
//
//   lockcheck::RecordingHandler rec;          // installed until destroyed
//   ... code that breaks a rule ...
//   ASSERT_EQ(rec.reports().size(), 1u);
//   EXPECT_EQ(rec.reports()[0].rule, lockcheck::Rule::kOrderInversion);
//
// Each distinct violation is reported once per process (until
// ResetForTesting): an order inversion once per pair of classes, an IRQ rule
// once per class (pair), a same-class recursion once per class, and every
// other rule once per (class, call site). A loop that repeats a bug does not
// flood a recording handler.
#ifndef FLOWCHECK_LOCKCHECK_REPORT_H_
#define FLOWCHECK_LOCKCHECK_REPORT_H_

#include <mutex>  // kept: earlier users may rely on it
#include <string>
#include <vector>

#include "common/check_id.h"

namespace lockcheck {

// The rules lockcheck enforces (lockdep's, for spinlocks). Each has a row in
// kRuleIds: its stable, lockdep-style name (what reports print) and what a
// report of it means; docs/lockcheck.md lists the same rows
// (//lockcheck:rule_ids_doc_test).
enum class Rule {
  kUnlockNotHeld,
  kUnlockNotOwner,
  kRecursiveLock,
  kRecursiveClass,
  kOrderInversion,
  kIrqSafety,
  kExitWithLocksHeld,
  kDestroyHeldLock,
  kAssertHeld,
  kAssertNotHeld,
  kUninitialized,
  kIrqSafeToUnsafe,
  kCount
};

inline constexpr flowcheck::CheckId<Rule> kRuleIds[] = {
    {Rule::kUnlockNotHeld, "unlock-of-unheld-lock", "unlock of a lock no thread holds"},
    {Rule::kUnlockNotOwner, "unlock-by-non-owner", "unlock by a thread that is not the owner"},
    {Rule::kRecursiveLock, "recursive-locking",
     "acquiring an instance the thread holds (self-deadlock); reported before spinning"},
    {Rule::kRecursiveClass, "recursive-locking-of-class",
     "acquiring a second lock of a class the thread holds: \"never two QPs' s_locks at once\" "
     "(lockdep's \"possible recursive locking\"); `spin_lock_nested` opts out"},
    {Rule::kOrderInversion, "lock-order-inversion",
     "a new class edge A -> B closes a cycle B -> ... -> A of any length"},
    {Rule::kIrqSafety, "inconsistent-irq-lock-state",
     "a class used in hardirq context is also taken, or held when IRQs are re-enabled, with "
     "IRQs on (either order of discovery)"},
    {Rule::kExitWithLocksHeld, "thread-exit-with-locks-held",
     "a thread exits holding locks (they stay locked)"},
    {Rule::kDestroyHeldLock, "held-lock-destroyed", "a held lock's destructor runs"},
    {Rule::kAssertHeld, "lockdep-assert-held-failed",
     "`lockdep_assert_held` in a thread that does not hold the lock"},
    {Rule::kAssertNotHeld, "lockdep-assert-not-held-failed",
     "`lockdep_assert_not_held` in the holder"},
    {Rule::kUninitialized, "uninitialized-lock", "a lock used before `spin_lock_init`"},
    {Rule::kIrqSafeToUnsafe, "irq-safe-to-irq-unsafe-lock-order",
     "a dependency path from an IRQ-safe class to an IRQ-unsafe one, whether the edge or a "
     "usage is learned last"},
};
static_assert(flowcheck::WellFormedIdTable(kRuleIds), "one row per Rule, in order");

// The rule's name, e.g. "lock-order-inversion" (its kRuleIds id).
const char* RuleName(Rule rule);

struct Report {
  Rule rule;
  std::string lock_class;     // the lock's class name, e.g. "&rcd->exp_lock"
  const void* lock;           // the lock instance involved
  std::string message;        // what happened and why it is a bug; for an
                              // order or IRQ rule, both sides, each with the
                              // symbolized stack where it was first seen
  // Locks the violating thread held, outermost first:
  // "class (instance) acquired at function".
  std::vector<std::string> held;
  std::string stack;          // symbolized stack of the violating call
  std::string thread;         // the violating thread: `thread 3 "qp-3"`

  // The whole report as printed by the default handler.
  std::string ToString() const;
};

// Receives every report. Called on the violating thread, with no lockcheck
// internal lock held. A handler that returns lets the operation continue as
// documented per rule (see spinlock.h). It must not take instrumented locks.
using ReportHandler = void (*)(const Report& report);

// Installs `handler` (nullptr: the default print-and-abort handler) and
// returns the previous one. Thread-safe.
ReportHandler SetReportHandler(ReportHandler handler);

// Installs a handler that records reports instead of aborting, for as long as
// it lives. Only one may be live at a time. Installing one forgets which
// violations were already reported, so each distinct violation is recorded
// once per session (not once per process). Thread-safe, and it creates no
// happens-before edges between the threads that report.
class RecordingHandler {
 public:
  RecordingHandler();
  ~RecordingHandler();
  RecordingHandler(const RecordingHandler&) = delete;
  RecordingHandler& operator=(const RecordingHandler&) = delete;

  std::vector<Report> reports() const;
  // Number of reports of `rule` so far.
  int count(Rule rule) const;

 private:
  static void Record(const Report& report);
  ReportHandler previous_;
};

}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_REPORT_H_
