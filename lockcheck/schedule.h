// lockcheck/schedule.h: the schedule-point hook.
//
// Every acquire and release of an instrumented lock calls the installed hook
// (a no-op by default). It is the seam where a stress test injects yields and
// where a deterministic scheduler can later take control of interleavings.
// The hook runs on the acquiring/releasing thread, outside any lockcheck
// internal lock; it must not take instrumented locks itself.
#ifndef FLOWCHECK_LOCKCHECK_SCHEDULE_H_
#define FLOWCHECK_LOCKCHECK_SCHEDULE_H_

namespace lockcheck {

enum class SchedulePoint {
  kBeforeAcquire,  // about to try to take `lock`
  kAfterRelease,   // just released `lock`
};

using ScheduleHook = void (*)(SchedulePoint point, const void* lock, void* arg);

// Installs `hook` with its `arg` (nullptr: none). Thread-safe; threads see the
// new hook at their next schedule point.
void SetScheduleHook(ScheduleHook hook, void* arg);

}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_SCHEDULE_H_
