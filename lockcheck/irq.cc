// lockcheck/irq.cc: the emulated per-thread IRQ flag and hardirq context.
#include "lockcheck/irq.h"

#include <atomic>

#include "lockcheck/internal/classes.h"
#include "lockcheck/internal/graph.h"
#include "lockcheck/internal/irq_state.h"
#include "lockcheck/internal/threads.h"

namespace lockcheck {
namespace internal {

void MarkHeldLocksIrqsOn(ThreadRecord* self) {
  int depth = HeldDepth(StateOf(self));
  for (int i = 0; i < depth; ++i) {
    int cls = ClassOfTag(self->held[i].tag.load(std::memory_order_relaxed));
    if (cls > 0 && !HasUsage(cls, kEnabledHardirq)) {
      MarkUsage(cls, kEnabledHardirq, self->held[i].lock.load(std::memory_order_relaxed));
    }
  }
}

}  // namespace internal

using internal::ThreadRecord;

// flags: 1 if IRQs were already off, 0 if they were on (opaque to callers).
unsigned long irq_save_and_disable() { return internal::SaveAndDisableIrqs(internal::Self()); }
void irq_restore(unsigned long flags) { internal::SetIrqsOff(internal::Self(), flags != 0); }
void irq_disable() { internal::SetIrqsOff(internal::Self(), true); }
void irq_enable() { internal::SetIrqsOff(internal::Self(), false); }

bool irqs_disabled() { return internal::IrqsOff(internal::StateOf(internal::Self())); }
bool in_hardirq() { return internal::InHardirq(internal::StateOf(internal::Self())); }

HardirqScope::HardirqScope() : saved_flags_(irq_save_and_disable()) {
  ThreadRecord* self = internal::Self();
  self->state.store(internal::StateOf(self) + internal::kHardirqOne, std::memory_order_relaxed);
}

HardirqScope::~HardirqScope() {
  ThreadRecord* self = internal::Self();
  self->state.store(internal::StateOf(self) - internal::kHardirqOne, std::memory_order_relaxed);
  irq_restore(saved_flags_);
}

}  // namespace lockcheck
