// lockcheck/internal/lock_state.cc: the general tier of the instrumented
// lock (lock_state.h): every check, every report, the schedule hook, spinning.
// Checks run before spinning, so a self-deadlock is reported, not hung on.
#include "lockcheck/internal/lock_state.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/base/optimization.h"
#include "lockcheck/internal/classes.h"
#include "lockcheck/internal/graph.h"
#include "lockcheck/internal/irq_state.h"
#include "lockcheck/internal/reporting.h"
#include "lockcheck/internal/schedule_point.h"
#include "lockcheck/internal/threads.h"
#include "lockcheck/report.h"

namespace lockcheck {
namespace internal {
namespace {

std::string HolderText(uint32_t owner, uint32_t me) {
  if (owner == 0) return "no thread holds it";
  if (owner == me) return "this thread holds it";
  return "thread " + std::to_string(owner) + " holds it";
}

}  // namespace

int LockState::Uninitialized(CheckedLock* l, const void* pc) {
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

int LockState::ClassFor(CheckedLock* l, int subclass, const void* pc) {
  int base = l->class_id_.load(std::memory_order_relaxed);
  if (ABSL_PREDICT_FALSE(base <= 0)) {
    return base == 0 ? Uninitialized(l, pc) : kUntrackedClass;
  }
  return subclass == 0 ? base : SubclassOf(base, subclass);
}

void LockState::ReportRecursiveLock(CheckedLock* l, int cls, const void* pc) {
  if (!ClaimReport(Rule::kRecursiveLock, cls, 0, pc)) return;
  Report r = NewReport(Rule::kRecursiveLock, l, cls);
  r.message = "recursive locking (self-deadlock): " + r.thread + " acquires " +
              LockLabel(cls, l) +
              ", which it already holds; a spinlock would spin on itself forever. "
              "(Not acquired again; the thread keeps its earlier hold.)";
  Deliver(r);
}

void LockState::ReportRecursiveClass(CheckedLock* l, int cls, const HeldEntry& held) {
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

// lockdep's check_deadlock() + check_prevs_add(): same class held, and the
// order edges from the held locks to this one (from the top of the stack,
// continuing past trylocks, as lockdep does).
void LockState::CheckAcquisition(ThreadRecord* self, int depth, CheckedLock* l, int cls) {
  for (int i = depth - 1; i >= 0; --i) {
    if (ClassOfTag(self->held[i].tag.load(std::memory_order_relaxed)) == cls) {
      ReportRecursiveClass(l, cls, self->held[i]);
      break;
    }
  }
  for (int i = depth - 1; i >= 0; --i) {
    const HeldEntry& h = self->held[i];
    const int32_t tag = h.tag.load(std::memory_order_relaxed);
    const int prev = ClassOfTag(tag);
    if (prev > 0 && prev != cls && !HasEdge(prev, cls)) {
      AddDependency(prev, h.lock.load(std::memory_order_relaxed), cls, l);
    }
    if (!IsTrylockTag(tag)) break;
  }
}

// lockdep's mark_irqflags(): what this acquisition says about the class.
void LockState::NoteIrqUsage(ThreadRecord* self, CheckedLock* l, int cls) {
  const uint32_t state = StateOf(self);
  const uint8_t bit = InHardirq(state) ? kUsedInHardirq : IrqsOff(state) ? 0 : kEnabledHardirq;
  if (bit != 0 && !HasUsage(cls, bit)) MarkUsage(cls, bit, l);
}

// Waits for the lock word to be free, then takes it for this thread.
void LockState::Spin(ThreadRecord* self, CheckedLock* l, int cls) {
  const uint32_t me = IdOf(self);
  self->waiting_class.store(cls, std::memory_order_relaxed);
  self->waiting_for.store(l, std::memory_order_relaxed);
  uint32_t expected;
  do {
    while (l->owner_.load(std::memory_order_relaxed) != 0) {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
    }
    expected = 0;
  } while (!l->owner_.compare_exchange_weak(expected, me, std::memory_order_acquire,
                                            std::memory_order_relaxed));
  self->waiting_for.store(nullptr, std::memory_order_relaxed);
}

void LockState::Push(ThreadRecord* self, CheckedLock* l, int cls, const void* pc,
                     bool trylock) {
  const uint32_t state = StateOf(self);
  const int depth = HeldDepth(state);
  if (ABSL_PREDICT_FALSE(depth >= kMaxHeldLocks)) {
    std::fprintf(stderr,
                 "lockcheck: %s holds more than %d locks (taking %s); "
                 "a lock is probably never released\n",
                 CurrentThreadLabel().c_str(), kMaxHeldLocks, ClassName(cls));
    std::abort();
  }
  HeldEntry& e = self->held[depth];
  e.lock.store(l, std::memory_order_relaxed);
  e.pc.store(pc, std::memory_order_relaxed);
  e.tag.store(MakeTag(cls, trylock), std::memory_order_relaxed);
  self->state.store(state + 1, std::memory_order_relaxed);
}

// Removes `l` from the held stack (releases need not be LIFO).
void LockState::Pop(ThreadRecord* self, const CheckedLock* l) {
  const uint32_t state = StateOf(self);
  const int depth = HeldDepth(state);
  int i = depth - 1;
  while (i >= 0 && self->held[i].lock.load(std::memory_order_relaxed) != l) --i;
  if (i < 0) return;
  for (; i + 1 < depth; ++i) {
    HeldEntry& to = self->held[i];
    const HeldEntry& from = self->held[i + 1];
    to.lock.store(from.lock.load(std::memory_order_relaxed), std::memory_order_relaxed);
    to.pc.store(from.pc.load(std::memory_order_relaxed), std::memory_order_relaxed);
    to.tag.store(from.tag.load(std::memory_order_relaxed), std::memory_order_relaxed);
  }
  self->state.store(state - 1, std::memory_order_relaxed);
}

void LockState::AcquireFor(CheckedLock* l, ThreadRecord* self, int subclass, const void* pc,
                           bool point) {
  const uint32_t me = IdOf(self);
  const int cls = ClassFor(l, subclass, pc);
  if (ABSL_PREDICT_FALSE(Owner(l) == me)) {
    ReportRecursiveLock(l, cls, pc);
    return;
  }
  if (ABSL_PREDICT_TRUE(cls > 0)) {
    CheckAcquisition(self, HeldDepth(StateOf(self)), l, cls);
    NoteIrqUsage(self, l, cls);
  }
  if (point) SchedulePointHere(SchedulePoint::kBeforeAcquire, l);
  uint32_t expected = 0;
  if (!l->owner_.compare_exchange_strong(expected, me, std::memory_order_acquire,
                                         std::memory_order_relaxed)) {
    Spin(self, l, cls);
  }
  Push(self, l, cls, pc, /*trylock=*/false);
}

void LockState::Acquire(CheckedLock* l, int subclass, const void* pc) {
  AcquireFor(l, Self(), subclass, pc, /*point=*/true);
}

// As the kernel: IRQs go off before the lock is taken (so the acquisition is
// checked with IRQs off) and come back after it is released. The decision
// point comes before IRQs go off, where the kernel's CPU can still take an
// interrupt (a controlled scheduler may run one there). Waiting at it for a
// held lock, with IRQs still on, is no interleaving the kernel forbids: the
// spin has no effect, so an interrupt during it is one just before it.
unsigned long LockState::AcquireIrqsave(CheckedLock* l, int subclass, const void* pc) {
  ThreadRecord* self = Self();
  SchedulePointHere(SchedulePoint::kBeforeAcquire, l);
  const unsigned long flags = SaveAndDisableIrqs(self);
  AcquireFor(l, self, subclass, pc, /*point=*/false);
  return flags;
}

bool LockState::TryAcquire(CheckedLock* l, const void* pc) {
  ThreadRecord* self = Self();
  const uint32_t me = IdOf(self);
  const int cls = ClassFor(l, 0, pc);
  if (Owner(l) == me) return false;  // as the kernel's: it is locked
  SchedulePointHere(SchedulePoint::kBeforeTryLock, l);
  uint32_t expected = 0;
  if (l->owner_.load(std::memory_order_relaxed) != 0 ||
      !l->owner_.compare_exchange_strong(expected, me, std::memory_order_acquire,
                                         std::memory_order_relaxed)) {
    return false;
  }
  if (cls > 0) NoteIrqUsage(self, l, cls);
  Push(self, l, cls, pc, /*trylock=*/true);
  return true;
}

void LockState::ReportBadUnlock(CheckedLock* l, uint32_t owner, uint32_t me, const void* pc) {
  const int cls = l->class_id_.load(std::memory_order_relaxed);
  const bool nobody = owner == 0;
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

bool LockState::ReleaseFor(CheckedLock* l, ThreadRecord* self, const void* pc) {
  const uint32_t me = IdOf(self);
  const uint32_t owner = Owner(l);
  if (ABSL_PREDICT_FALSE(owner != me)) {
    ReportBadUnlock(l, owner, me, pc);
    return false;
  }
  Pop(self, l);
  l->owner_.store(0, std::memory_order_release);
  return true;
}

void LockState::Release(CheckedLock* l, const void* pc) {
  if (ReleaseFor(l, Self(), pc)) SchedulePointHere(SchedulePoint::kAfterRelease, l);
}

// The decision point comes after IRQs are restored: an interrupt may land
// the instant spin_unlock_irqrestore re-enables them (between two irqsave
// sections). Nothing another CPU can see happens between the release and
// the restore, so no interleaving is lost by not deciding between them.
void LockState::ReleaseIrqrestore(CheckedLock* l, unsigned long flags, const void* pc) {
  ThreadRecord* self = Self();
  const bool released = ReleaseFor(l, self, pc);
  SetIrqsOff(self, flags != 0);
  if (released) SchedulePointHere(SchedulePoint::kAfterRelease, l);
}

void LockState::Destroy(CheckedLock* l, const void* pc) {
  const uint32_t owner = Owner(l);
  if (owner == 0) return;
  ThreadRecord* self = Self();
  const uint32_t me = IdOf(self);
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

void LockState::AssertHeld(const CheckedLock* l, const void* pc) {
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

void LockState::DeclareHardirqSafe(const CheckedLock* l) {
  const int cls = l->class_id_.load(std::memory_order_relaxed);
  if (cls > 0 && !HasUsage(cls, kUsedInHardirq)) MarkUsage(cls, kUsedInHardirq, l);
}

void LockState::AssertNotHeld(const CheckedLock* l, const void* pc) {
  const uint32_t me = IdOf(Self());
  if (ABSL_PREDICT_TRUE(Owner(l) != me)) return;
  const int cls = l->class_id_.load(std::memory_order_relaxed);
  if (!ClaimReport(Rule::kAssertNotHeld, cls, 0, pc)) return;
  Report r = NewReport(Rule::kAssertNotHeld, l, cls);
  r.message =
      "lockdep_assert_not_held(" + LockLabel(cls, l) + ") failed: " + r.thread + " holds it.";
  Deliver(r);
}

}  // namespace internal
}  // namespace lockcheck
