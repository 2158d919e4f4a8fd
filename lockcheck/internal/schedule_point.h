// lockcheck/internal/schedule_point.h: the installed schedule hook, read on
// every acquire and release with relaxed loads (no synchronization added).
#ifndef FLOWCHECK_LOCKCHECK_INTERNAL_SCHEDULE_POINT_H_
#define FLOWCHECK_LOCKCHECK_INTERNAL_SCHEDULE_POINT_H_

#include <atomic>

#include "lockcheck/schedule.h"

namespace lockcheck {
namespace internal {

extern std::atomic<ScheduleHook> g_schedule_hook;
extern std::atomic<void*> g_schedule_arg;

inline void SchedulePointHere(SchedulePoint point, const void* lock) {
  ScheduleHook hook = g_schedule_hook.load(std::memory_order_relaxed);
  if (hook != nullptr) hook(point, lock, g_schedule_arg.load(std::memory_order_relaxed));
}

}  // namespace internal
}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_INTERNAL_SCHEDULE_POINT_H_
