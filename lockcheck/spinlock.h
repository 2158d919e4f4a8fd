// lockcheck/spinlock.h: the kernel's spinlock_t, instrumented like lockdep.
//
// Code under test is written as in the kernel:
//
//   spin_lock_init(&rcd->exp_lock);              // once; names the lock class
//   unsigned long flags;
//   spin_lock_irqsave(&rcd->exp_lock, flags);
//   ... r = kern_reserve_flow(rcd, last); ...   // __must_hold(&rcd->exp_lock)
//   spin_unlock_irqrestore(&rcd->exp_lock, flags);
//
// Two layers of checking:
//  * compile time: spinlock_t is a Clang thread-safety capability, and
//    __must_hold(&lock) is ABSL_EXCLUSIVE_LOCKS_REQUIRED, so calling a
//    __must_hold function without the lock does not compile;
//  * run time (unless compiled out, see config.h): owner tracking, lock classes,
//    a per-thread held-lock stack, the lock-order graph, emulated IRQ state and
//    the rules of report.h. Every acquire and release passes a schedule point
//    (schedule.h).
//
// Lock classes follow lockdep: spin_lock_init() defines one class per call
// site (a static key), named by its argument's text ("&rcd->exp_lock"), shared
// by every lock initialised there. spin_lock_nested(lock, n) takes the lock as
// subclass n of its class ("&qp->s_lock/1"), for the rare legitimate nesting
// of two locks of one class.
//
// lockcheck never adds happens-before edges between threads beyond those the
// locks themselves create, so ThreadSanitizer still sees every race in the
// code under test.
//
// The kernel-named functions are templates over the lock kind: spinlock_t is
// BasicSpinLock<kChecksEnabled>, and a benchmark may use BasicSpinLock<true>
// and BasicSpinLock<false> side by side whatever the build mode. On an
// unchecked lock every wrapper is inline and compiles to the atomic operations
// alone: no owner, no IRQ emulation (flags are 0), no schedule point.
#ifndef FLOWCHECK_LOCKCHECK_SPINLOCK_H_
#define FLOWCHECK_LOCKCHECK_SPINLOCK_H_

#include <atomic>
#include <cstdint>

#include "absl/base/attributes.h"
#include "absl/base/thread_annotations.h"
#include "lockcheck/config.h"
#include "lockcheck/internal/classes.h"  // kMaxSubclasses, for the fast path

// The kernel's sparse/Context-Analysis annotations, mapped onto Clang's
// thread-safety attributes.
#define __must_hold(x) ABSL_EXCLUSIVE_LOCKS_REQUIRED(x)
#define __acquires(x) ABSL_EXCLUSIVE_LOCK_FUNCTION(x)
#define __releases(x) ABSL_UNLOCK_FUNCTION(x)

// lockdep's subclass for one level of same-class nesting.
#define SINGLE_DEPTH_NESTING 1

namespace lockcheck {

// kMaxSubclasses (internal/classes.h): lockdep's MAX_LOCKDEP_SUBCLASSES,
// valid subclasses are 0..7.

// lockdep's lock_class_key: one static instance per spin_lock_init() site.
struct lock_class_key {
  std::atomic<int> id{0};  // 0 until the class is registered
};

namespace internal {
struct LockState;  // run-time bookkeeping, defined in spinlock.cc
}  // namespace internal

// A spinlock. kChecked selects the instrumented version.
template <bool kChecked>
class ABSL_LOCKABLE BasicSpinLock;

// Uninstrumented: a test-and-test-and-set spinlock on one std::atomic.
template <>
class ABSL_LOCKABLE BasicSpinLock<false> {
 public:
  BasicSpinLock() = default;
  BasicSpinLock(const BasicSpinLock&) = delete;
  BasicSpinLock& operator=(const BasicSpinLock&) = delete;

  void Init(const char* /*name*/, lock_class_key* /*key*/) {}
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) {
#if defined(__x86_64__)
        __builtin_ia32_pause();
#endif
      }
    }
  }
  void LockNested(int /*subclass*/) ABSL_EXCLUSIVE_LOCK_FUNCTION() { Lock(); }
  // No IRQ emulation: the flags are always 0.
  unsigned long LockIrqsave(int /*subclass*/) ABSL_EXCLUSIVE_LOCK_FUNCTION() {
    Lock();
    return 0;
  }
  void UnlockIrqrestore(unsigned long /*flags*/) ABSL_UNLOCK_FUNCTION() { Unlock(); }
  bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) {
    return !locked_.load(std::memory_order_relaxed) &&
           !locked_.exchange(true, std::memory_order_acquire);
  }
  void Unlock() ABSL_UNLOCK_FUNCTION() {
    locked_.store(false, std::memory_order_release);
  }
  // Without checks nothing is known about the owner: assertions pass.
  bool HeldByCurrentThread() const { return true; }
  bool IsLocked() const { return locked_.load(std::memory_order_relaxed); }
  const char* class_name() const { return "<unchecked>"; }

 private:
  std::atomic<bool> locked_{false};
};

// Instrumented: owner tracking plus lockdep (see report.h for the rules).
// Checks run BEFORE the lock is spun on, so a self-deadlock is reported, not
// hung on. On a violation the report handler runs; if it returns (a
// RecordingHandler), the operation goes on like this:
//   recursive acquisition of the same instance: not acquired again (no hang);
//   unlock of a lock not held / by a non-owner: the unlock is skipped;
//   any other rule: the operation proceeds normally.
template <>
class ABSL_LOCKABLE BasicSpinLock<true> {
 public:
  BasicSpinLock() = default;
  ~BasicSpinLock();  // reports kDestroyHeldLock if held
  BasicSpinLock(const BasicSpinLock&) = delete;
  BasicSpinLock& operator=(const BasicSpinLock&) = delete;

  // Gives the lock its class (lockdep: lockdep_set_class_and_name). `name`
  // must outlive the program (spin_lock_init passes a string literal).
  void Init(const char* name, lock_class_key* key);

  // Lock, LockNested, Unlock, LockIrqsave and UnlockIrqrestore are inline
  // (internal/lock_state.h): the common case runs in the caller, and the
  // acquisition's call site is recorded as a point in the caller.
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION();
  // Lock() as subclass `subclass` (0..kMaxSubclasses-1) of the lock's class.
  ABSL_ATTRIBUTE_ALWAYS_INLINE void LockNested(int subclass) ABSL_EXCLUSIVE_LOCK_FUNCTION();
  // Never spins and never adds an order edge (a trylock cannot deadlock), but
  // locks taken while it is held are ordered after it. Fails (returns false,
  // no report) if the calling thread already holds the lock.
  bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true);
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Unlock() ABSL_UNLOCK_FUNCTION();

  // The _irqsave/_irq variants in one call (one lookup of the thread's
  // state): LockIrqsave disables the emulated IRQs, then locks, and returns
  // the previous IRQ state; UnlockIrqrestore unlocks, then restores `flags`
  // (0: IRQs on, as spin_unlock_irq leaves them).
  ABSL_ATTRIBUTE_ALWAYS_INLINE unsigned long LockIrqsave(int subclass)
      ABSL_EXCLUSIVE_LOCK_FUNCTION();
  ABSL_ATTRIBUTE_ALWAYS_INLINE void UnlockIrqrestore(unsigned long flags) ABSL_UNLOCK_FUNCTION();

  bool HeldByCurrentThread() const;
  bool IsLocked() const { return owner_.load(std::memory_order_relaxed) != 0; }

  // Class name ("&rcd->exp_lock"), or "<uninitialized>".
  const char* class_name() const;

 private:
  friend struct internal::LockState;
  // The lock word is the owner's lockcheck thread id (never 0), 0 when free:
  // taken by a compare-exchange 0 -> id (acquire), released by storing 0
  // (release). Lock and owner in one word: no second shared write per
  // acquisition, and no moment where the lock is taken but has no owner.
  std::atomic<uint32_t> owner_{0};
  std::atomic<int> class_id_{0};  // 0 = uninitialized; -1 = reported as such
};

// Emulated IRQ flag handling behind the irq variants of a CHECKED lock
// (irq.h has the kernel-named interface). Always the real emulation.
unsigned long irq_save_and_disable();
void irq_restore(unsigned long flags);
void irq_disable();
void irq_enable();

}  // namespace lockcheck

// The checked lock's inline acquire/release paths.
#include "lockcheck/internal/lock_state.h"  // IWYU pragma: export

using spinlock_t = lockcheck::BasicSpinLock<lockcheck::kChecksEnabled>;

// spin_lock_init(&lock): one lock class per call site, named by the argument.
#define spin_lock_init(lock)                                 \
  do {                                                       \
    static ::lockcheck::lock_class_key __lockcheck_key;      \
    (lock)->Init(#lock, &__lockcheck_key);                   \
  } while (0)

// spin_lock_irqsave(lock, flags): disables (emulated) IRQs, saves the previous
// state in `flags` (an unsigned long lvalue), takes the lock.
#define spin_lock_irqsave(lock, flags) ((flags) = _spin_lock_irqsave(lock))
#define spin_lock_irqsave_nested(lock, flags, subclass) \
  ((flags) = _spin_lock_irqsave_nested(lock, subclass))

// The wrappers are always inlined, so the return address lockcheck records
// for an acquisition is the caller's, in every compilation mode.
#define LOCKCHECK_WRAPPER_ ABSL_ATTRIBUTE_ALWAYS_INLINE inline

// One set of kernel-named wrappers over both lock kinds: each forwards to the
// lock's member, which the unchecked lock implements as the atomic operation
// alone (subclass ignored, flags 0).
template <bool kChecked>
LOCKCHECK_WRAPPER_ void spin_lock(lockcheck::BasicSpinLock<kChecked>* lock) __acquires(lock) {
  lock->Lock();
}
template <bool kChecked>
LOCKCHECK_WRAPPER_ void spin_lock_nested(lockcheck::BasicSpinLock<kChecked>* lock, int subclass)
    __acquires(lock) {
  lock->LockNested(subclass);
}
template <bool kChecked>
LOCKCHECK_WRAPPER_ void spin_unlock(lockcheck::BasicSpinLock<kChecked>* lock) __releases(lock) {
  lock->Unlock();
}
template <bool kChecked>
LOCKCHECK_WRAPPER_ int spin_trylock(lockcheck::BasicSpinLock<kChecked>* lock)
    ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(1, lock) {
  return lock->TryLock() ? 1 : 0;
}
template <bool kChecked>
LOCKCHECK_WRAPPER_ unsigned long _spin_lock_irqsave(lockcheck::BasicSpinLock<kChecked>* lock)
    __acquires(lock) {
  return lock->LockIrqsave(0);
}
template <bool kChecked>
LOCKCHECK_WRAPPER_ unsigned long _spin_lock_irqsave_nested(
    lockcheck::BasicSpinLock<kChecked>* lock, int subclass) __acquires(lock) {
  return lock->LockIrqsave(subclass);
}
template <bool kChecked>
LOCKCHECK_WRAPPER_ void spin_unlock_irqrestore(lockcheck::BasicSpinLock<kChecked>* lock,
                                               unsigned long flags) __releases(lock) {
  lock->UnlockIrqrestore(flags);
}
template <bool kChecked>
LOCKCHECK_WRAPPER_ void spin_lock_irq(lockcheck::BasicSpinLock<kChecked>* lock) __acquires(lock) {
  (void)lock->LockIrqsave(0);
}
template <bool kChecked>
LOCKCHECK_WRAPPER_ void spin_unlock_irq(lockcheck::BasicSpinLock<kChecked>* lock)
    __releases(lock) {
  lock->UnlockIrqrestore(0);
}
template <bool kChecked>
LOCKCHECK_WRAPPER_ int spin_is_locked(const lockcheck::BasicSpinLock<kChecked>* lock) {
  return lock->IsLocked() ? 1 : 0;
}

#endif  // FLOWCHECK_LOCKCHECK_SPINLOCK_H_
