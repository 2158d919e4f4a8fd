// lockcheck/internal/irq_state.h: the emulated IRQ flag of a thread record,
// shared by irq.cc (the kernel-named functions) and lock_state.h/.cc (the
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
  const uint32_t s = StateOf(self);
  self->state.store(s | kIrqsOffBit, std::memory_order_relaxed);
  return IrqsOff(s) ? 1 : 0;
}

// After IRQs went from `before` to `after` (states): turning them on outside
// hardirq context while holding locks marks those locks' classes "held with
// IRQs on".
inline void NoteIrqsRestored(ThreadRecord* self, uint32_t before, uint32_t after) {
  if (IrqsOff(before) && !IrqsOff(after) && !InHardirq(after) && HeldDepth(after) > 0) {
    MarkHeldLocksIrqsOn(self);
  }
}

// Sets the IRQ state (see NoteIrqsRestored).
inline void SetIrqsOff(ThreadRecord* self, bool off) {
  const uint32_t s = StateOf(self);
  const uint32_t n = off ? s | kIrqsOffBit : s & ~kIrqsOffBit;
  self->state.store(n, std::memory_order_relaxed);
  NoteIrqsRestored(self, s, n);
}

}  // namespace internal
}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_INTERNAL_IRQ_STATE_H_
