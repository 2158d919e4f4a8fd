// lockcheck/internal/irq_state.h: the emulated IRQ flag of a thread record,
// shared by irq.cc (the kernel-named functions) and spinlock.cc (the
// _irqsave/_irq lock variants, which change it in the same call).
#ifndef FLOWCHECK_LOCKCHECK_INTERNAL_IRQ_STATE_H_
#define FLOWCHECK_LOCKCHECK_INTERNAL_IRQ_STATE_H_

#include "lockcheck/internal/threads.h"

namespace lockcheck {
namespace internal {

// lockdep's mark_held_locks(): IRQs were re-enabled outside hardirq context,
// so every lock still held is now held with IRQs on. Defined in irq.cc.
void MarkHeldLocksIrqsOn(ThreadRecord* self);

// Disables IRQs; returns the previous state as flags (1: were off, 0: on).
inline unsigned long SaveAndDisableIrqs(ThreadRecord* self) {
  bool was_off = self->irqs_off.load(std::memory_order_relaxed);
  self->irqs_off.store(true, std::memory_order_relaxed);
  return was_off ? 1 : 0;
}

// Sets the IRQ state. Turning IRQs on outside hardirq context while holding
// locks marks those locks' classes "held with IRQs on".
inline void SetIrqsOff(ThreadRecord* self, bool off) {
  bool was_off = self->irqs_off.load(std::memory_order_relaxed);
  self->irqs_off.store(off, std::memory_order_relaxed);
  if (was_off && !off && self->hardirq_depth.load(std::memory_order_relaxed) == 0 &&
      self->depth.load(std::memory_order_relaxed) > 0) {
    MarkHeldLocksIrqsOn(self);
  }
}

}  // namespace internal
}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_INTERNAL_IRQ_STATE_H_
