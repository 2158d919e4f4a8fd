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
  int depth = self->depth.load(std::memory_order_relaxed);
  for (int i = 0; i < depth; ++i) {
    int cls = self->held[i].cls.load(std::memory_order_relaxed);
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

bool irqs_disabled() {
  return internal::Self()->irqs_off.load(std::memory_order_relaxed);
}
bool in_hardirq() {
  return internal::Self()->hardirq_depth.load(std::memory_order_relaxed) > 0;
}

HardirqScope::HardirqScope() : saved_flags_(irq_save_and_disable()) {
  ThreadRecord* self = internal::Self();
  self->hardirq_depth.store(self->hardirq_depth.load(std::memory_order_relaxed) + 1,
                            std::memory_order_relaxed);
}

HardirqScope::~HardirqScope() {
  ThreadRecord* self = internal::Self();
  self->hardirq_depth.store(self->hardirq_depth.load(std::memory_order_relaxed) - 1,
                            std::memory_order_relaxed);
  irq_restore(saved_flags_);
}

}  // namespace lockcheck
