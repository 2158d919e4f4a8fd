// lockcheck/internal/lock_state.h: the instrumented lock's acquire and release
// paths, in two tiers. spinlock.h includes it at its end.
//
// Fast tier (inline here, and inlined into the caller of spin_lock() & co.):
// the common case of a known class, no new order edge, no new IRQ usage, no
// schedule hook. It only READS the thread's own record and read-mostly class
// data, and decides "nothing to learn, nothing to report"; then it takes the
// lock with one compare-exchange on the lock word (which holds the owner's
// id, so there is no separate owner store) and writes the thread's own
// record. If anything is unusual it returns false having changed nothing, and
// the caller runs the general tier.
//
// General tier (lock_state.cc, never inlined): every check and report
// (report.h), class registration, new edges and usage bits (graph.h), the
// schedule hook, spinning under contention, non-LIFO release. It never
// assumes the fast tier ran.
//
// Both tiers touch other threads' memory only through the lock word (acquire
// compare-exchange, release store: the happens-before edge the lock itself
// creates) and relaxed loads of class data; the thread's record is written
// with relaxed stores, read by other threads best-effort (threads.h). All
// per-thread state is reached through the one pointer internal::tls_record.

// Before the include guard: spinlock.h includes this file at its end, after
// BasicSpinLock<true> is complete, whichever of the two a file includes first.
#include "lockcheck/spinlock.h"

#ifndef FLOWCHECK_LOCKCHECK_INTERNAL_LOCK_STATE_H_
#define FLOWCHECK_LOCKCHECK_INTERNAL_LOCK_STATE_H_

#include <atomic>
#include <cstdint>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/base/thread_annotations.h"
#include "lockcheck/internal/classes.h"
#include "lockcheck/internal/irq_state.h"
#include "lockcheck/internal/schedule_point.h"
#include "lockcheck/internal/threads.h"

namespace lockcheck {
namespace internal {

using CheckedLock = BasicSpinLock<true>;

struct LockState {
  static uint32_t Owner(const CheckedLock* l) { return l->owner_.load(std::memory_order_relaxed); }

  // ---- Fast tier --------------------------------------------------------

  // Takes `l` as subclass `subclass` for `self` if the acquisition is the
  // common case (see above) and the lock is free; returns false, having
  // changed nothing, otherwise. `state` is the thread's state the lock is
  // taken in (StateOf(self), with kIrqsOffBit added by the _irqsave
  // variants); on success the thread's state becomes `state` plus this lock.
  // `pc` is the acquisition's call site.
  ABSL_ATTRIBUTE_ALWAYS_INLINE static bool FastAcquire(CheckedLock* l, ThreadRecord* self,
                                                       uint32_t state, int subclass,
                                                       const void* pc) {
    if (g_schedule_hook.load(std::memory_order_relaxed) != nullptr) return false;
    int cls = l->class_id_.load(std::memory_order_relaxed);
    if (ABSL_PREDICT_FALSE(cls <= 0)) return false;
    if (subclass != 0) {
      if (static_cast<unsigned>(subclass) >= static_cast<unsigned>(kMaxSubclasses)) return false;
      cls = g_classes[cls].sub[subclass].load(std::memory_order_relaxed);
      if (cls == 0) return false;
    }
    const int depth = HeldDepth(state);
    if (ABSL_PREDICT_FALSE(depth >= kMaxHeldLocks)) return false;
    if (depth > 0) {
      // lockdep's check_prevs_add: the order edge from the innermost held
      // lock is known (under a trylocked lock, edges continue past it: left
      // to the general tier). check_deadlock: no held lock of this class
      // (kRecursiveClass, or kRecursiveLock on this very instance).
      const int32_t top = self->held[depth - 1].tag.load(std::memory_order_relaxed);
      const int prev = ClassOfTag(top);
      if (IsTrylockTag(top) || prev == cls || (prev > 0 && !HasEdge(prev, cls))) return false;
      for (int i = depth - 2; i >= 0; --i) {
        if (ClassOfTag(self->held[i].tag.load(std::memory_order_relaxed)) == cls) return false;
      }
    }
    // lockdep's mark_irqflags: the usage this acquisition shows is known.
    const uint8_t usage = InHardirq(state) ? kUsedInHardirq
                          : IrqsOff(state) ? 0
                                           : kEnabledHardirq;
    if (usage != 0 && !HasUsage(cls, usage)) return false;
    uint32_t expected = 0;
    if (!l->owner_.compare_exchange_strong(expected, IdOf(self), std::memory_order_acquire,
                                           std::memory_order_relaxed)) {
      return false;  // held (maybe by this thread): the general tier reports or spins
    }
    HeldEntry& e = self->held[depth];
    e.lock.store(l, std::memory_order_relaxed);
    e.pc.store(pc, std::memory_order_relaxed);
    e.tag.store(MakeTag(cls, /*trylock=*/false), std::memory_order_relaxed);
    self->state.store(state + 1, std::memory_order_relaxed);
    return true;
  }

  // Releases `l` if `self` holds it as its innermost lock and no schedule
  // hook is installed, leaving the thread's state `after` (computed by the
  // caller from `state` = StateOf(self): one lock less, maybe IRQs on);
  // returns false, having changed nothing, otherwise.
  ABSL_ATTRIBUTE_ALWAYS_INLINE static bool FastRelease(CheckedLock* l, ThreadRecord* self,
                                                       uint32_t state, uint32_t after) {
    if (g_schedule_hook.load(std::memory_order_relaxed) != nullptr) return false;
    if (Owner(l) != IdOf(self)) return false;
    const int depth = HeldDepth(state);
    if (depth <= 0 || self->held[depth - 1].lock.load(std::memory_order_relaxed) != l) {
      return false;
    }
    self->state.store(after, std::memory_order_relaxed);
    l->owner_.store(0, std::memory_order_release);
    return true;
  }

  // ---- General tier (lock_state.cc) -------------------------------------
  // Never inlined, so the fast tier stays small in every caller.

  // Lock / LockNested from the start (registers the thread if needed).
  ABSL_ATTRIBUTE_NOINLINE static void Acquire(CheckedLock* l, int subclass, const void* pc);
  // LockIrqsave from the start; returns the flags.
  ABSL_ATTRIBUTE_NOINLINE static unsigned long AcquireIrqsave(CheckedLock* l, int subclass,
                                                              const void* pc);
  ABSL_ATTRIBUTE_NOINLINE static bool TryAcquire(CheckedLock* l, const void* pc);
  ABSL_ATTRIBUTE_NOINLINE static void Release(CheckedLock* l, const void* pc);
  // Release, then restore IRQs to `flags`.
  ABSL_ATTRIBUTE_NOINLINE static void ReleaseIrqrestore(CheckedLock* l, unsigned long flags,
                                                        const void* pc);
  static void Destroy(CheckedLock* l, const void* pc);
  static void AssertHeld(const CheckedLock* l, const void* pc);
  static void AssertNotHeld(const CheckedLock* l, const void* pc);
  static void DeclareHardirqSafe(const CheckedLock* l);

 private:
  // `point`: fire the kBeforeAcquire schedule point (the irqsave path fires
  // it itself, before IRQs go off).
  static void AcquireFor(CheckedLock* l, ThreadRecord* self, int subclass, const void* pc,
                         bool point);
  // False (and nothing released) on a bad unlock, which is reported. The
  // caller fires the kAfterRelease schedule point.
  static bool ReleaseFor(CheckedLock* l, ThreadRecord* self, const void* pc);
  static int ClassFor(CheckedLock* l, int subclass, const void* pc);
  static int Uninitialized(CheckedLock* l, const void* pc);
  static void CheckAcquisition(ThreadRecord* self, int depth, CheckedLock* l, int cls);
  static void NoteIrqUsage(ThreadRecord* self, CheckedLock* l, int cls);
  static void Spin(ThreadRecord* self, CheckedLock* l, int cls);
  static void Push(ThreadRecord* self, CheckedLock* l, int cls, const void* pc, bool trylock);
  static void Pop(ThreadRecord* self, const CheckedLock* l);
  static void ReportRecursiveLock(CheckedLock* l, int cls, const void* pc);
  static void ReportRecursiveClass(CheckedLock* l, int cls, const HeldEntry& held);
  static void ReportBadUnlock(CheckedLock* l, uint32_t owner, uint32_t me, const void* pc);
};

#if !defined(__x86_64__)
// The return address of this call: a point inside its caller.
ABSL_ATTRIBUTE_NOINLINE const void* ReturnAddressOfThisCall();
#endif

// A point inside the function this is inlined into: the call site recorded
// for an acquisition ("acquired at", and report dedupe per call site). Each
// inlined copy yields its own address (the asm is volatile, so never merged).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const void* CallSite() {
#if defined(__x86_64__)
  const void* pc;
  asm volatile("lea 0(%%rip), %0" : "=r"(pc));
  return pc;
#else
  return ReturnAddressOfThisCall();
#endif
}

}  // namespace internal

// The entry points: the fast tier, else the general tier (which starts over).
inline void BasicSpinLock<true>::Lock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  const void* pc = internal::CallSite();
  internal::ThreadRecord* self = internal::tls_record;
  if (ABSL_PREDICT_TRUE(self != nullptr) &&
      ABSL_PREDICT_TRUE(
          internal::LockState::FastAcquire(this, self, internal::StateOf(self), 0, pc))) {
    return;
  }
  internal::LockState::Acquire(this, 0, pc);
}

inline void BasicSpinLock<true>::LockNested(int subclass) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  const void* pc = internal::CallSite();
  internal::ThreadRecord* self = internal::tls_record;
  if (ABSL_PREDICT_TRUE(self != nullptr) &&
      ABSL_PREDICT_TRUE(internal::LockState::FastAcquire(this, self, internal::StateOf(self),
                                                         subclass, pc))) {
    return;
  }
  internal::LockState::Acquire(this, subclass, pc);
}

// As the kernel: IRQs go off before the lock is taken (so the acquisition is
// checked with IRQs off) and come back after it is released. The fast tier
// stores both changes to the thread's state at once.
inline unsigned long BasicSpinLock<true>::LockIrqsave(int subclass)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  const void* pc = internal::CallSite();
  internal::ThreadRecord* self = internal::tls_record;
  if (ABSL_PREDICT_TRUE(self != nullptr)) {
    const uint32_t state = internal::StateOf(self);
    if (ABSL_PREDICT_TRUE(internal::LockState::FastAcquire(
            this, self, state | internal::kIrqsOffBit, subclass, pc))) {
      return internal::IrqsOff(state) ? 1 : 0;
    }
  }
  return internal::LockState::AcquireIrqsave(this, subclass, pc);
}

inline void BasicSpinLock<true>::Unlock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  internal::ThreadRecord* self = internal::tls_record;
  if (ABSL_PREDICT_TRUE(self != nullptr)) {
    const uint32_t state = internal::StateOf(self);
    if (ABSL_PREDICT_TRUE(internal::LockState::FastRelease(this, self, state, state - 1))) {
      return;
    }
  }
  internal::LockState::Release(this, internal::CallSite());
}

inline void BasicSpinLock<true>::UnlockIrqrestore(unsigned long flags)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  internal::ThreadRecord* self = internal::tls_record;
  if (ABSL_PREDICT_TRUE(self != nullptr)) {
    const uint32_t state = internal::StateOf(self);
    const uint32_t after =
        ((state - 1) & ~internal::kIrqsOffBit) | (flags != 0 ? internal::kIrqsOffBit : 0);
    if (ABSL_PREDICT_TRUE(internal::LockState::FastRelease(this, self, state, after))) {
      internal::NoteIrqsRestored(self, state, after);
      return;
    }
  }
  internal::LockState::ReleaseIrqrestore(this, flags, internal::CallSite());
}

}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_INTERNAL_LOCK_STATE_H_
