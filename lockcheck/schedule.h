// lockcheck/schedule.h: the schedule-point hook.
//
// Every acquire, trylock and release of an instrumented lock calls the
// installed hook (a no-op by default). It is the seam where a stress test
// injects yields and where a deterministic scheduler can later take control of
// interleavings. The hook runs on the acquiring/releasing thread, after the
// acquisition's checks and before it spins, outside any lockcheck internal
// lock; it must not take instrumented locks itself. Unchecked locks (checks
// compiled out) have no schedule points.
#ifndef FLOWCHECK_LOCKCHECK_SCHEDULE_H_
#define FLOWCHECK_LOCKCHECK_SCHEDULE_H_

namespace lockcheck {

enum class SchedulePoint {
  kBeforeAcquire,  // about to take `lock`, spinning if held (Lock, LockNested)
  kAfterRelease,   // just released `lock`
  kBeforeTryLock,  // about to try `lock` once (TryLock: never waits)
};

using ScheduleHook = void (*)(SchedulePoint point, const void* lock, void* arg);

// Installs `hook` with its `arg` (nullptr: none). Threads see the new hook at
// their next schedule point. Install or change it while no other thread can
// be at a schedule point: the hook and its arg are two relaxed words (so the
// hook adds no synchronization) and may otherwise be seen torn.
void SetScheduleHook(ScheduleHook hook, void* arg);

}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_SCHEDULE_H_
