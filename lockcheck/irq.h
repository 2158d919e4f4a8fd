// lockcheck/irq.h: emulated interrupt state, per thread.
//
// The kernel takes exp_lock from the receive interrupt, so lockdep's IRQ rules
// apply: a lock class ever taken in hardirq context must never be taken with
// IRQs enabled, or an interrupt arriving while it is held would deadlock.
// A thread that models an interrupt handler wraps the handler in a
// HardirqScope (irq_enter/irq_exit); IRQs are then off and in_hardirq() is
// true. local_irq_save/restore and the _irqsave/_irq lock variants change the
// per-thread flag as in the kernel.
#ifndef FLOWCHECK_LOCKCHECK_IRQ_H_
#define FLOWCHECK_LOCKCHECK_IRQ_H_

#include "lockcheck/spinlock.h"

namespace lockcheck {

bool irqs_disabled();
bool in_hardirq();

// Runs the enclosing block as an emulated hardirq handler on this thread.
class HardirqScope {
 public:
  HardirqScope();
  ~HardirqScope();
  HardirqScope(const HardirqScope&) = delete;
  HardirqScope& operator=(const HardirqScope&) = delete;

 private:
  unsigned long saved_flags_;
};

}  // namespace lockcheck

inline void local_irq_disable() { lockcheck::irq_disable(); }
inline void local_irq_enable() { lockcheck::irq_enable(); }
#define local_irq_save(flags) ((flags) = ::lockcheck::irq_save_and_disable())
#define local_irq_restore(flags) ::lockcheck::irq_restore(flags)
inline bool irqs_disabled() { return lockcheck::irqs_disabled(); }

#endif  // FLOWCHECK_LOCKCHECK_IRQ_H_
