// lockcheck/internal/tsan.h: keeping lockcheck's own bookkeeping invisible to
// ThreadSanitizer.
//
// lockcheck must add no happens-before edge between threads beyond what the
// instrumented locks themselves create: if two threads both passed through a
// lockcheck-internal std::mutex, TSan would order everything one did before it
// with everything the other did after it, and stop reporting real races in the
// code under test (a missing exp_lock). So:
//   * the fast path touches only thread-local state and relaxed atomics;
//   * every slow path that takes an internal mutex (class registration, a new
//     order edge or IRQ usage bit, thread registration, report dedupe,
//     symbolization, the recording handler) runs inside a TsanIgnoreScope,
//     which tells TSan to ignore both the synchronization (the mutex, atomics)
//     and the memory accesses in it. Data touched there is either atomic or
//     only ever touched inside such a scope, so no race is hidden or invented.
//   * no function-local statics on paths that threads share: the guard of a
//     lazily initialized static is a release/acquire pair that TSan sees
//     (the canary caught exactly that); state lives in constant-initialized
//     globals instead (std::mutex is constexpr-constructible).
// canary_race_through_lockcheck proves it (see BUILD).
// Without TSan the scope is empty.
#ifndef FLOWCHECK_LOCKCHECK_INTERNAL_TSAN_H_
#define FLOWCHECK_LOCKCHECK_INTERNAL_TSAN_H_

#include <mutex>

#include "common/sanitizers.h"

namespace lockcheck {
namespace internal {

// Hides accesses and synchronization (common/sanitizers.h).
using TsanIgnoreScope = ::flowcheck::TsanIgnoreAll;

// A lockcheck-internal mutex held inside a TsanIgnoreScope. The only way
// lockcheck takes its internal mutexes; they are never nested.
class IgnoredLockGuard {
 public:
  explicit IgnoredLockGuard(std::mutex& mu) : guard_(mu) {}
  IgnoredLockGuard(const IgnoredLockGuard&) = delete;
  IgnoredLockGuard& operator=(const IgnoredLockGuard&) = delete;

 private:
  TsanIgnoreScope ignore_;  // constructed first, destroyed last
  std::lock_guard<std::mutex> guard_;
};

}  // namespace internal
}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_INTERNAL_TSAN_H_
