// lockcheck/config.h: whether lockcheck's run-time checks are compiled in.
//
// Checks are on by default. Building with -DLOCKCHECK_DISABLE_CHECKS=1 (the
// `bench` config in .bazelrc does) turns spinlock_t into a plain test-and-set
// spinlock: no owner tracking, no lockdep, no reports, no schedule points. The
// thread-safety annotations (compile-time) stay in both modes.
#ifndef FLOWCHECK_LOCKCHECK_CONFIG_H_
#define FLOWCHECK_LOCKCHECK_CONFIG_H_

#if defined(LOCKCHECK_DISABLE_CHECKS) && LOCKCHECK_DISABLE_CHECKS
#define LOCKCHECK_CHECKS 0
#else
#define LOCKCHECK_CHECKS 1
#endif

namespace lockcheck {
inline constexpr bool kChecksEnabled = LOCKCHECK_CHECKS != 0;
}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_CONFIG_H_
