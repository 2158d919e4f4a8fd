// lockcheck/spinlock.cc: the instrumented spinlock's out-of-line members.
// Lock, LockNested, Unlock, LockIrqsave and UnlockIrqrestore are inline
// (internal/lock_state.h); their general tier is in internal/lock_state.cc.
#include "lockcheck/spinlock.h"

#include <atomic>

#include "lockcheck/internal/classes.h"
#include "lockcheck/internal/lock_state.h"
#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"

namespace lockcheck {

using internal::LockState;

BasicSpinLock<true>::~BasicSpinLock() { LockState::Destroy(this, __builtin_return_address(0)); }

void BasicSpinLock<true>::Init(const char* name, lock_class_key* key) {
  class_id_.store(internal::ClassOfKey(name, key), std::memory_order_relaxed);
}

bool BasicSpinLock<true>::TryLock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  return LockState::TryAcquire(this, __builtin_return_address(0));
}

bool BasicSpinLock<true>::HeldByCurrentThread() const {
  return LockState::Owner(this) == CurrentThreadId();
}

const char* BasicSpinLock<true>::class_name() const {
  return internal::ClassName(class_id_.load(std::memory_order_relaxed));
}

void AssertHeld(const BasicSpinLock<true>* lock) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  LockState::AssertHeld(lock, __builtin_return_address(0));
}

void DeclareHardirqSafe(const BasicSpinLock<true>* lock) { LockState::DeclareHardirqSafe(lock); }

void AssertNotHeld(const BasicSpinLock<true>* lock) {
  LockState::AssertNotHeld(lock, __builtin_return_address(0));
}

namespace internal {
#if !defined(__x86_64__)
const void* ReturnAddressOfThisCall() { return __builtin_return_address(0); }
#endif
}  // namespace internal

}  // namespace lockcheck
