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
// by every lock initialised there.
//
// lockcheck never adds happens-before edges between threads beyond those the
// locks themselves create, so ThreadSanitizer still sees every race in the
// code under test.
#ifndef FLOWCHECK_LOCKCHECK_SPINLOCK_H_
#define FLOWCHECK_LOCKCHECK_SPINLOCK_H_

#include <atomic>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "lockcheck/config.h"

// The kernel's sparse/Context-Analysis annotations, mapped onto Clang's
// thread-safety attributes.
#define __must_hold(x) ABSL_EXCLUSIVE_LOCKS_REQUIRED(x)
#define __acquires(x) ABSL_EXCLUSIVE_LOCK_FUNCTION(x)
#define __releases(x) ABSL_UNLOCK_FUNCTION(x)

namespace lockcheck {

// lockdep's lock_class_key: one static instance per spin_lock_init() site.
struct lock_class_key {
  std::atomic<int> id{0};  // 0 until the class is registered
};

namespace internal {
struct LockState;  // run-time bookkeeping, defined in lockdep.cc
}  // namespace internal

// A spinlock. kChecked selects the instrumented version; the kernel-named
// functions below use spinlock_t = BasicSpinLock<kChecksEnabled>. Benchmarks
// instantiate both in one binary.
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

 private:
  std::atomic<bool> locked_{false};
};

// Instrumented: owner tracking plus lockdep (see lockdep.h for the rules).
// On a violation the report handler runs; if it returns (a RecordingHandler),
// the operation goes on like this:
//   recursive acquisition of the same instance: not acquired again (no hang);
//   unlock of a lock not held / by a non-owner: the unlock is skipped;
//   any other rule: the operation proceeds normally.
template <>
class ABSL_LOCKABLE BasicSpinLock<true> {
 public:
  BasicSpinLock();
  ~BasicSpinLock();  // reports kDestroyHeldLock if held
  BasicSpinLock(const BasicSpinLock&) = delete;
  BasicSpinLock& operator=(const BasicSpinLock&) = delete;

  // Gives the lock its class (lockdep: lockdep_set_class_and_name).
  void Init(const char* name, lock_class_key* key);

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION();
  bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true);
  void Unlock() ABSL_UNLOCK_FUNCTION();

  bool HeldByCurrentThread() const;
  bool IsLocked() const { return locked_.load(std::memory_order_relaxed); }

  // Class name ("&rcd->exp_lock"), or "<uninitialized>".
  const char* class_name() const;

 private:
  friend struct internal::LockState;
  std::atomic<bool> locked_{false};
  std::atomic<uint32_t> owner_{0};  // lockcheck thread id; 0 = none
  std::atomic<int> class_id_{0};    // 0 = uninitialized
};

}  // namespace lockcheck

using spinlock_t = lockcheck::BasicSpinLock<lockcheck::kChecksEnabled>;

// spin_lock_init(&lock): one lock class per call site, named by the argument.
#define spin_lock_init(lock)                                 \
  do {                                                       \
    static ::lockcheck::lock_class_key __lockcheck_key;      \
    (lock)->Init(#lock, &__lockcheck_key);                   \
  } while (0)

inline void spin_lock(spinlock_t* lock) __acquires(lock) { lock->Lock(); }
inline void spin_unlock(spinlock_t* lock) __releases(lock) { lock->Unlock(); }
inline int spin_trylock(spinlock_t* lock) ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(1, lock) {
  return lock->TryLock() ? 1 : 0;
}

namespace lockcheck {
// Emulated IRQ flag handling behind the irq variants (irq.h has the rest).
unsigned long irq_save_and_disable();
void irq_restore(unsigned long flags);
void irq_disable();
void irq_enable();
}  // namespace lockcheck

inline unsigned long _spin_lock_irqsave(spinlock_t* lock) __acquires(lock) {
  unsigned long flags = lockcheck::irq_save_and_disable();
  lock->Lock();
  return flags;
}
// spin_lock_irqsave(lock, flags): disables (emulated) IRQs, saves the previous
// state in `flags` (an unsigned long lvalue), takes the lock.
#define spin_lock_irqsave(lock, flags) ((flags) = _spin_lock_irqsave(lock))

inline void spin_unlock_irqrestore(spinlock_t* lock, unsigned long flags)
    __releases(lock) {
  lock->Unlock();
  lockcheck::irq_restore(flags);
}
inline void spin_lock_irq(spinlock_t* lock) __acquires(lock) {
  lockcheck::irq_disable();
  lock->Lock();
}
inline void spin_unlock_irq(spinlock_t* lock) __releases(lock) {
  lock->Unlock();
  lockcheck::irq_enable();
}

#endif  // FLOWCHECK_LOCKCHECK_SPINLOCK_H_
