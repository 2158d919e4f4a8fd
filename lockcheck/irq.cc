// lockcheck/irq.cc: the emulated per-thread IRQ flag and hardirq context.
#include "lockcheck/irq.h"

#include <atomic>

#include "lockcheck/internal/classes.h"
#include "lockcheck/internal/graph.h"
#include "lockcheck/internal/threads.h"

namespace lockcheck {
namespace {

using internal::ThreadRecord;

// lockdep's mark_held_locks(): IRQs were re-enabled outside hardirq context,
// so every lock still held is now held with IRQs on.
void MarkHeldLocksIrqsOn(ThreadRecord* self) {
  int depth = self->depth.load(std::memory_order_relaxed);
  for (int i = 0; i < depth; ++i) {
    int cls = self->held[i].cls.load(std::memory_order_relaxed);
    if (cls > 0 && !internal::HasUsage(cls, internal::kEnabledHardirq)) {
      internal::MarkUsage(cls, internal::kEnabledHardirq,
                          self->held[i].lock.load(std::memory_order_relaxed));
    }
  }
}

void SetIrqsOff(ThreadRecord* self, bool off) {
  bool was_off = self->irqs_off.load(std::memory_order_relaxed);
  self->irqs_off.store(off, std::memory_order_relaxed);
  if (was_off && !off && self->hardirq_depth.load(std::memory_order_relaxed) == 0 &&
      self->depth.load(std::memory_order_relaxed) > 0) {
    MarkHeldLocksIrqsOn(self);
  }
}

}  // namespace

// flags: 1 if IRQs were already off, 0 if they were on (opaque to callers).
unsigned long irq_save_and_disable() {
  ThreadRecord* self = internal::Self();
  bool was_off = self->irqs_off.load(std::memory_order_relaxed);
  self->irqs_off.store(true, std::memory_order_relaxed);
  return was_off ? 1 : 0;
}
void irq_restore(unsigned long flags) { SetIrqsOff(internal::Self(), flags != 0); }
void irq_disable() { SetIrqsOff(internal::Self(), true); }
void irq_enable() { SetIrqsOff(internal::Self(), false); }

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
