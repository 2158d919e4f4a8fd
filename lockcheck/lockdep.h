// lockcheck/lockdep.h: lockdep's assertions and run-time introspection.
//
//   lockdep_assert_held(&rcd->exp_lock);      // the CALLING thread holds it
//   lockdep_assert_not_held(&qp->s_lock);
//
// A failed assertion is a report (report.h): kAssertHeld / kAssertNotHeld.
// lockdep_assert_held also tells Clang's analysis that the lock is held from
// here on (as the kernel's Context Analysis does), so a function that only
// asserts at run time still type-checks its guarded accesses.
// On an unchecked lock (checks compiled out, config.h) both are no-ops.
#ifndef FLOWCHECK_LOCKCHECK_LOCKDEP_H_
#define FLOWCHECK_LOCKCHECK_LOCKDEP_H_

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "lockcheck/spinlock.h"

namespace lockcheck {

void AssertHeld(const BasicSpinLock<true>* lock) ABSL_ASSERT_EXCLUSIVE_LOCK(lock);
void AssertNotHeld(const BasicSpinLock<true>* lock);

// lockcheck's id of the calling thread (1, 2, ...; never 0). Stable for the
// thread's lifetime; never reused.
uint32_t CurrentThreadId();

// Names the calling thread in reports and DescribeAllThreads(), e.g. "qp-3"
// (at most 31 characters are kept).
void SetThreadName(const char* name);

// One line per live thread that lockcheck has seen (a thread registers at its
// first lockcheck operation and unregisters when it exits): its id and name,
// its IRQ state, the locks it holds (class and instance, outermost first, with
// where each was taken) and the lock it is spinning on, if any, with that
// lock's holder. Safe to call from any thread at any time (e.g. a watchdog);
// the snapshot is best effort and adds no synchronization between the threads
// it describes.
std::string DescribeAllThreads();

// Forgets the lock-order graph, the IRQ usage learned so far and which
// violations were already reported (classes keep their names). For tests that
// provoke violations on purpose; call only while no other thread uses
// lockcheck.
void ResetForTesting();

}  // namespace lockcheck

LOCKCHECK_WRAPPER_ void lockdep_assert_held(const lockcheck::BasicSpinLock<true>* lock)
    ABSL_ASSERT_EXCLUSIVE_LOCK(lock) {
  lockcheck::AssertHeld(lock);
}
LOCKCHECK_WRAPPER_ void lockdep_assert_not_held(const lockcheck::BasicSpinLock<true>* lock) {
  lockcheck::AssertNotHeld(lock);
}
LOCKCHECK_WRAPPER_ void lockdep_assert_held(const lockcheck::BasicSpinLock<false>* lock)
    ABSL_ASSERT_EXCLUSIVE_LOCK(lock) {
  (void)lock;
}
LOCKCHECK_WRAPPER_ void lockdep_assert_not_held(const lockcheck::BasicSpinLock<false>* lock) {
  (void)lock;
}

#endif  // FLOWCHECK_LOCKCHECK_LOCKDEP_H_
