// lockcheck/spinlock.cc: the instrumented spinlock's acquire/release paths.
//
// Fast path (the common case: a known class, known order edges, known IRQ
// usage): thread-local record + relaxed atomics only, no lock, no allocation,
// no stack capture. Anything new goes to classes.cc / graph.cc; any violation
// to the reporting code. Checks run before spinning.
#include "lockcheck/spinlock.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "lockcheck/internal/classes.h"
#include "lockcheck/internal/graph.h"
#include "lockcheck/internal/irq_state.h"
#include "lockcheck/internal/reporting.h"
#include "lockcheck/internal/schedule_point.h"
#include "lockcheck/internal/threads.h"
#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/report.h"

namespace lockcheck {
namespace internal {

using CheckedLock = BasicSpinLock<true>;

std::string HolderText(uint32_t owner, uint32_t me) {
  if (owner == 0) return "no thread holds it";
  if (owner == me) return "this thread holds it";
  return "thread " + std::to_string(owner) + " holds it";
}

struct LockState {
  static uint32_t Owner(const CheckedLock* l) { return l->owner_.load(std::memory_order_relaxed); }

  ABSL_ATTRIBUTE_NOINLINE static int Uninitialized(CheckedLock* l, const void* pc) {
    int expected = 0;
    if (l->class_id_.compare_exchange_strong(expected, kUntrackedClass,
                                             std::memory_order_relaxed) &&
        ClaimReport(Rule::kUninitialized, 0, 0, pc)) {
      Report r = NewReport(Rule::kUninitialized, l, kUntrackedClass);
      r.message = r.thread + " uses " + LockLabel(kUntrackedClass, l) +
                  " before spin_lock_init(): it has no lock class, so lockcheck "
                  "cannot check its order or IRQ rules (it still tracks the "
                  "owner). Initialise every lock with spin_lock_init().";
      Deliver(r);
    }
    return kUntrackedClass;
  }

  ABSL_ATTRIBUTE_ALWAYS_INLINE static int ClassFor(CheckedLock* l, int subclass, const void* pc) {
    int base = l->class_id_.load(std::memory_order_relaxed);
    if (ABSL_PREDICT_FALSE(base <= 0)) {
      return base == 0 ? Uninitialized(l, pc) : kUntrackedClass;
    }
    return subclass == 0 ? base : SubclassOf(base, subclass);
  }

  ABSL_ATTRIBUTE_NOINLINE static void ReportRecursiveLock(CheckedLock* l, int cls, const void* pc) {
    if (!ClaimReport(Rule::kRecursiveLock, cls, 0, pc)) return;
    Report r = NewReport(Rule::kRecursiveLock, l, cls);
    r.message = "recursive locking (self-deadlock): " + r.thread + " acquires " +
                LockLabel(cls, l) +
                ", which it already holds; a spinlock would spin on itself forever. "
                "(Not acquired again; the thread keeps its earlier hold.)";
    Deliver(r);
  }

  ABSL_ATTRIBUTE_NOINLINE static void ReportRecursiveClass(CheckedLock* l, int cls,
                                                           const HeldEntry& held) {
    if (!ClaimReport(Rule::kRecursiveClass, cls, 0, nullptr)) return;
    Report r = NewReport(Rule::kRecursiveClass, l, cls);
    r.message = "possible recursive locking: " + r.thread + " acquires " + LockLabel(cls, l) +
                " while already holding " +
                LockLabel(cls, held.lock.load(std::memory_order_relaxed)) +
                " of the same class. Two threads doing this on the same two "
                "locks in opposite order deadlock (e.g. two QPs' s_locks). If "
                "the nesting is legitimate and ordered, use spin_lock_nested().";
    Deliver(r);
  }

  // lockdep's check_deadlock() + check_prevs_add(): same class held, and
  // the order edges from the held locks to this one (from the top of the
  // stack, continuing past trylocks, as lockdep does).
  ABSL_ATTRIBUTE_ALWAYS_INLINE static void CheckAcquisition(ThreadRecord* self, int depth,
                                                            CheckedLock* l, int cls) {
    for (int i = depth - 1; i >= 0; --i) {
      if (self->held[i].cls.load(std::memory_order_relaxed) == cls) {
        ReportRecursiveClass(l, cls, self->held[i]);
        break;
      }
    }
    for (int i = depth - 1; i >= 0; --i) {
      const HeldEntry& h = self->held[i];
      int prev = h.cls.load(std::memory_order_relaxed);
      if (prev > 0 && prev != cls && ABSL_PREDICT_FALSE(!HasEdge(prev, cls))) {
        AddDependency(prev, h.lock.load(std::memory_order_relaxed), cls, l);
      }
      if (!h.trylock.load(std::memory_order_relaxed)) break;
    }
  }

  // lockdep's mark_irqflags(): what this acquisition says about the class.
  ABSL_ATTRIBUTE_ALWAYS_INLINE static void NoteIrqUsage(ThreadRecord* self, CheckedLock* l,
                                                        int cls) {
    uint8_t bit = self->hardirq_depth.load(std::memory_order_relaxed) > 0 ? kUsedInHardirq
                  : self->irqs_off.load(std::memory_order_relaxed)        ? 0
                                                                          : kEnabledHardirq;
    if (bit != 0 && ABSL_PREDICT_FALSE(!HasUsage(cls, bit))) MarkUsage(cls, bit, l);
  }

  ABSL_ATTRIBUTE_NOINLINE static void Spin(ThreadRecord* self, CheckedLock* l, int cls) {
    self->waiting_class.store(cls, std::memory_order_relaxed);
    self->waiting_for.store(l, std::memory_order_relaxed);
    do {
      while (l->locked_.load(std::memory_order_relaxed)) {
#if defined(__x86_64__)
        __builtin_ia32_pause();
#endif
      }
    } while (l->locked_.exchange(true, std::memory_order_acquire));
    self->waiting_for.store(nullptr, std::memory_order_relaxed);
  }

  ABSL_ATTRIBUTE_ALWAYS_INLINE static void Push(ThreadRecord* self, CheckedLock* l, int cls,
                                                const void* pc, bool trylock) {
    int depth = self->depth.load(std::memory_order_relaxed);
    if (ABSL_PREDICT_FALSE(depth >= kMaxHeldLocks)) {
      std::fprintf(stderr,
                   "lockcheck: %s holds more than %d locks (taking %s); "
                   "a lock is probably never released\n",
                   CurrentThreadLabel().c_str(), kMaxHeldLocks, ClassName(cls));
      std::abort();
    }
    HeldEntry& e = self->held[depth];
    e.lock.store(l, std::memory_order_relaxed);
    e.cls.store(cls, std::memory_order_relaxed);
    e.pc.store(pc, std::memory_order_relaxed);
    e.trylock.store(trylock, std::memory_order_relaxed);
    self->depth.store(depth + 1, std::memory_order_relaxed);
  }

  // Removes `l` from the held stack (releases need not be LIFO).
  ABSL_ATTRIBUTE_ALWAYS_INLINE static void Pop(ThreadRecord* self, const CheckedLock* l) {
    int depth = self->depth.load(std::memory_order_relaxed);
    int i = depth - 1;
    while (i >= 0 && self->held[i].lock.load(std::memory_order_relaxed) != l) --i;
    if (i < 0) return;
    for (; i + 1 < depth; ++i) {
      HeldEntry& to = self->held[i];
      const HeldEntry& from = self->held[i + 1];
      to.lock.store(from.lock.load(std::memory_order_relaxed), std::memory_order_relaxed);
      to.cls.store(from.cls.load(std::memory_order_relaxed), std::memory_order_relaxed);
      to.pc.store(from.pc.load(std::memory_order_relaxed), std::memory_order_relaxed);
      to.trylock.store(from.trylock.load(std::memory_order_relaxed), std::memory_order_relaxed);
    }
    self->depth.store(depth - 1, std::memory_order_relaxed);
  }

  ABSL_ATTRIBUTE_ALWAYS_INLINE static void Acquire(CheckedLock* l, ThreadRecord* self, int subclass,
                                                   const void* pc) {
    const uint32_t me = IdOf(self);
    const int cls = ClassFor(l, subclass, pc);
    if (ABSL_PREDICT_FALSE(Owner(l) == me)) {
      ReportRecursiveLock(l, cls, pc);
      return;
    }
    if (ABSL_PREDICT_TRUE(cls > 0)) {
      CheckAcquisition(self, self->depth.load(std::memory_order_relaxed), l, cls);
      NoteIrqUsage(self, l, cls);
    }
    SchedulePointHere(SchedulePoint::kBeforeAcquire, l);
    if (ABSL_PREDICT_FALSE(l->locked_.exchange(true, std::memory_order_acquire))) {
      Spin(self, l, cls);
    }
    l->owner_.store(me, std::memory_order_relaxed);
    Push(self, l, cls, pc, /*trylock=*/false);
  }

  ABSL_ATTRIBUTE_ALWAYS_INLINE static bool TryAcquire(CheckedLock* l, const void* pc) {
    ThreadRecord* self = Self();
    const uint32_t me = IdOf(self);
    const int cls = ClassFor(l, 0, pc);
    if (Owner(l) == me) return false;  // as the kernel's: it is locked
    SchedulePointHere(SchedulePoint::kBeforeTryLock, l);
    if (l->locked_.load(std::memory_order_relaxed) ||
        l->locked_.exchange(true, std::memory_order_acquire)) {
      return false;
    }
    l->owner_.store(me, std::memory_order_relaxed);
    if (cls > 0) NoteIrqUsage(self, l, cls);
    Push(self, l, cls, pc, /*trylock=*/true);
    return true;
  }

  ABSL_ATTRIBUTE_NOINLINE static void ReportBadUnlock(CheckedLock* l, uint32_t owner, uint32_t me,
                                                      const void* pc) {
    const int cls = l->class_id_.load(std::memory_order_relaxed);
    const bool nobody = owner == 0 && !l->IsLocked();
    const Rule rule = nobody ? Rule::kUnlockNotHeld : Rule::kUnlockNotOwner;
    if (!ClaimReport(rule, cls, 0, pc)) return;
    Report r = NewReport(rule, l, cls);
    r.message = (nobody ? "unlock of a lock that is not held: "
                        : "unlock by a thread that "
                          "does not own the lock: ") +
                r.thread + " releases " + LockLabel(cls, l) + ", but " + HolderText(owner, me) +
                ". (The unlock is skipped.)";
    Deliver(r);
  }

  ABSL_ATTRIBUTE_ALWAYS_INLINE static void Release(CheckedLock* l, ThreadRecord* self,
                                                   const void* pc) {
    const uint32_t me = IdOf(self);
    const uint32_t owner = Owner(l);
    if (ABSL_PREDICT_FALSE(owner != me)) {
      ReportBadUnlock(l, owner, me, pc);
      return;
    }
    Pop(self, l);
    l->owner_.store(0, std::memory_order_relaxed);
    l->locked_.store(false, std::memory_order_release);
    SchedulePointHere(SchedulePoint::kAfterRelease, l);
  }

  static void Destroy(CheckedLock* l, const void* pc) {
    if (!l->IsLocked()) return;
    ThreadRecord* self = Self();
    const uint32_t me = IdOf(self);
    const uint32_t owner = Owner(l);
    const int cls = l->class_id_.load(std::memory_order_relaxed);
    if (ClaimReport(Rule::kDestroyHeldLock, cls, 0, pc)) {
      Report r = NewReport(Rule::kDestroyHeldLock, l, cls);
      r.message = "a held lock is destroyed: " + r.thread + " destroys " + LockLabel(cls, l) +
                  " while " + HolderText(owner, me) + "; its holder will unlock freed memory.";
      Deliver(r);
    }
    // Forget it here, so this thread's held stack never names freed memory.
    if (owner == me) Pop(self, l);
  }

  static void AssertHeld(const CheckedLock* l, const void* pc) {
    const uint32_t me = IdOf(Self());
    const uint32_t owner = Owner(l);
    if (ABSL_PREDICT_TRUE(owner == me)) return;
    const int cls = l->class_id_.load(std::memory_order_relaxed);
    if (!ClaimReport(Rule::kAssertHeld, cls, 0, pc)) return;
    Report r = NewReport(Rule::kAssertHeld, l, cls);
    r.message = "lockdep_assert_held(" + LockLabel(cls, l) + ") failed in " + r.thread + ": " +
                HolderText(owner, me) + ".";
    Deliver(r);
  }

  static void DeclareHardirqSafe(const CheckedLock* l) {
    const int cls = l->class_id_.load(std::memory_order_relaxed);
    if (cls > 0 && !HasUsage(cls, kUsedInHardirq)) MarkUsage(cls, kUsedInHardirq, l);
  }

  static void AssertNotHeld(const CheckedLock* l, const void* pc) {
    const uint32_t me = IdOf(Self());
    if (ABSL_PREDICT_TRUE(Owner(l) != me)) return;
    const int cls = l->class_id_.load(std::memory_order_relaxed);
    if (!ClaimReport(Rule::kAssertNotHeld, cls, 0, pc)) return;
    Report r = NewReport(Rule::kAssertNotHeld, l, cls);
    r.message =
        "lockdep_assert_not_held(" + LockLabel(cls, l) + ") failed: " + r.thread + " holds it.";
    Deliver(r);
  }
};

}  // namespace internal

using internal::LockState;

BasicSpinLock<true>::~BasicSpinLock() { LockState::Destroy(this, __builtin_return_address(0)); }

void BasicSpinLock<true>::Init(const char* name, lock_class_key* key) {
  class_id_.store(internal::ClassOfKey(name, key), std::memory_order_relaxed);
}

void BasicSpinLock<true>::Lock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  LockState::Acquire(this, internal::Self(), 0, __builtin_return_address(0));
}

void BasicSpinLock<true>::LockNested(int subclass) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  LockState::Acquire(this, internal::Self(), subclass, __builtin_return_address(0));
}

// As the kernel: IRQs go off before the lock is taken (so the acquisition is
// checked with IRQs off) and come back after it is released.
unsigned long BasicSpinLock<true>::LockIrqsave(int subclass) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  internal::ThreadRecord* self = internal::Self();
  const unsigned long flags = internal::SaveAndDisableIrqs(self);
  LockState::Acquire(this, self, subclass, __builtin_return_address(0));
  return flags;
}

void BasicSpinLock<true>::UnlockIrqrestore(unsigned long flags) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  internal::ThreadRecord* self = internal::Self();
  LockState::Release(this, self, __builtin_return_address(0));
  internal::SetIrqsOff(self, flags != 0);
}

bool BasicSpinLock<true>::TryLock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  return LockState::TryAcquire(this, __builtin_return_address(0));
}

void BasicSpinLock<true>::Unlock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  LockState::Release(this, internal::Self(), __builtin_return_address(0));
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

}  // namespace lockcheck
