// lockcheck/irq.h: emulated interrupt state, per thread.
//
// The kernel takes exp_lock from the receive interrupt, so lockdep's IRQ rules
// apply (report.h: kIrqSafety, kIrqSafeToUnsafe): a lock class ever taken in
// hardirq context must never be taken with IRQs enabled, or an interrupt
// arriving while it is held would deadlock; and an IRQ-safe lock must never be
// held while taking an IRQ-unsafe one.
//
// A thread that models an interrupt handler wraps the handler in a
// HardirqScope (irq_enter/irq_exit): IRQs are then off and in_hardirq() is
// true. local_irq_save/restore and the _irqsave/_irq lock variants change the
// per-thread flag as in the kernel. Re-enabling IRQs while holding a lock
// counts as holding that lock with IRQs on (lockdep's mark_held_locks).
//
// With checks compiled out (config.h) the kernel-named functions below do
// nothing and irqs_disabled() is always true (an assertion on it passes, as
// lockdep_assert_held does). HardirqScope and in_hardirq() keep working.
#ifndef FLOWCHECK_LOCKCHECK_IRQ_H_
#define FLOWCHECK_LOCKCHECK_IRQ_H_

#include "lockcheck/config.h"
#include "lockcheck/spinlock.h"

namespace lockcheck {

// The calling thread's emulated state (the real emulation, in every mode).
bool irqs_disabled();
bool in_hardirq();

// Runs the enclosing block as an emulated hardirq handler on this thread.
// Nests. Locks taken inside are marked "used in hardirq context".
class HardirqScope {
 public:
  HardirqScope();
  ~HardirqScope();
  HardirqScope(const HardirqScope&) = delete;
  HardirqScope& operator=(const HardirqScope&) = delete;

 private:
  unsigned long saved_flags_;
};

// Declares the class of `lock` IRQ-safe, as if it had just been taken in
// hardirq context here: from now on, taking (or holding) any lock of that
// class with IRQs enabled is a kIrqSafety report, even in a run that never
// emulates the interrupt. For locks the kernel takes from interrupt context,
// like exp_lock (taken by the receive interrupt, so "IRQ-safe only"). Call after spin_lock_init, and
// again after ResetForTesting (which forgets it). No-op on unchecked locks.
void DeclareHardirqSafe(const BasicSpinLock<true>* lock);
inline void DeclareHardirqSafe(const BasicSpinLock<false>* /*lock*/) {}

}  // namespace lockcheck

#if LOCKCHECK_CHECKS
inline void local_irq_disable() { lockcheck::irq_disable(); }
inline void local_irq_enable() { lockcheck::irq_enable(); }
#define local_irq_save(flags) ((flags) = ::lockcheck::irq_save_and_disable())
#define local_irq_restore(flags) ::lockcheck::irq_restore(flags)
inline bool irqs_disabled() { return lockcheck::irqs_disabled(); }
#else
inline void local_irq_disable() {}
inline void local_irq_enable() {}
#define local_irq_save(flags) ((flags) = 0UL)
#define local_irq_restore(flags) ((void)(flags))
inline bool irqs_disabled() { return true; }
#endif

#endif  // FLOWCHECK_LOCKCHECK_IRQ_H_
