#include "lockcheck/schedule.h"

#include "lockcheck/internal/schedule_point.h"

namespace lockcheck {
namespace internal {

std::atomic<ScheduleHook> g_schedule_hook{nullptr};
std::atomic<void*> g_schedule_arg{nullptr};

}  // namespace internal

void SetScheduleHook(ScheduleHook hook, void* arg) {
  internal::g_schedule_arg.store(arg, std::memory_order_relaxed);
  internal::g_schedule_hook.store(hook, std::memory_order_relaxed);
}

}  // namespace lockcheck
