// lockcheck/schedule.h: the schedule-point hook.
//
// Every acquire, trylock and release of an instrumented lock calls the
// installed hook (a no-op by default). It is the seam where a stress test
// injects yields and where a deterministic scheduler takes control of
// interleavings. The hook runs on the acquiring/releasing thread, after the
// acquisition's checks and before it spins, outside any lockcheck internal
// lock; it must not take instrumented locks itself. Unchecked locks (checks
// compiled out) have no schedule points.
//
// Code that is not a lock (core's atomic bit operations, the work queue, the
// kernel's windows between two steps) marks its own points with
// SchedulePointNamed("label"): the hook is called with kNamed and the label
// in place of the lock. Without a hook installed that costs one relaxed load
// and a branch; with checks compiled out, nothing.
#ifndef FLOWCHECK_LOCKCHECK_SCHEDULE_H_
#define FLOWCHECK_LOCKCHECK_SCHEDULE_H_

#include <atomic>

#include "lockcheck/config.h"

namespace lockcheck {

enum class SchedulePoint {
  kBeforeAcquire,  // about to take `lock`, spinning if held (Lock, LockNested)
  kAfterRelease,   // just released `lock`
  kBeforeTryLock,  // about to try `lock` once (TryLock: never waits)
  kNamed,          // SchedulePointNamed: `lock` is the label (a const char*)
};

// `lock` is the lock's address, or for kNamed the label passed to
// SchedulePointNamed (a string literal, kept by pointer).
using ScheduleHook = void (*)(SchedulePoint point, const void* lock, void* arg);

// Installs `hook` with its `arg` (nullptr: none). Threads see the new hook at
// their next schedule point. Install or change it while no other thread can
// be at a schedule point: the hook and its arg are two relaxed words (so the
// hook adds no synchronization) and may otherwise be seen torn.
void SetScheduleHook(ScheduleHook hook, void* arg);

namespace internal {
extern std::atomic<ScheduleHook> g_schedule_hook;
extern std::atomic<void*> g_schedule_arg;
}  // namespace internal

// A schedule point that is not a lock operation: calls the hook with kNamed
// and `label` (a string literal: hooks keep the pointer). Holds no lock and
// adds no synchronization. A controlled scheduler makes it a decision point
// (another thread may run here); the stress driver's yield hook ignores it.
inline void SchedulePointNamed(const char* label) {
#if LOCKCHECK_CHECKS
  ScheduleHook hook = internal::g_schedule_hook.load(std::memory_order_relaxed);
  if (__builtin_expect(hook != nullptr, 0)) {
    hook(SchedulePoint::kNamed, label, internal::g_schedule_arg.load(std::memory_order_relaxed));
  }
#else
  (void)label;
#endif
}

}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_SCHEDULE_H_
