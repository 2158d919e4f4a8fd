// core/bitops.h: the kernel's bit operations on an `unsigned long` word.
//
// As in the kernel (include/asm-generic/bitops/atomic.h, instrumented-atomic.h):
//   test_and_set_bit, set_bit, clear_bit   atomic read-modify-write of the word
//   test_bit, ffz                          plain reads of the word
// The RMWs use the __atomic builtins on the plain word, exactly the kernel's
// shape. That is what lets ThreadSanitizer judge a caller: under exp_lock all
// accesses are ordered by the lock and nothing is reported; a caller that
// forgets exp_lock makes ffz()'s plain read race with another thread's atomic
// RMW, which TSan reports. A split test-then-set (two atomics, no lock) is not
// a data race at all; the oracle catches that one (a flow handed out twice).
//
// Each RMW is a schedule point first (lockcheck::SchedulePointNamed): under
// a controlled scheduler another thread may run between the caller's last
// step and the RMW; otherwise it costs one relaxed load.
//
// `nr` must be below BITS_PER_LONG (checked in debug builds by the callers'
// contracts, as in the kernel: out-of-range nr is undefined there too).
#ifndef FLOWCHECK_CORE_BITOPS_H_
#define FLOWCHECK_CORE_BITOPS_H_

#include "lockcheck/schedule.h"

inline constexpr int BITS_PER_BYTE = 8;
inline constexpr int BITS_PER_LONG = sizeof(unsigned long) * BITS_PER_BYTE;

inline unsigned long BIT_MASK(int nr) { return 1UL << (nr % BITS_PER_LONG); }

// Atomically sets bit nr and returns whether it was set before. Fully ordered
// (the kernel's test_and_set_bit is a full barrier).
inline bool test_and_set_bit(int nr, unsigned long* addr) {
  lockcheck::SchedulePointNamed("test_and_set_bit");
  unsigned long mask = BIT_MASK(nr);
  return (__atomic_fetch_or(addr, mask, __ATOMIC_SEQ_CST) & mask) != 0;
}

// Atomically sets bit nr. Unordered in the kernel; relaxed here.
inline void set_bit(int nr, unsigned long* addr) {
  lockcheck::SchedulePointNamed("set_bit");
  __atomic_fetch_or(addr, BIT_MASK(nr), __ATOMIC_RELAXED);
}

// Atomically clears bit nr. Unordered in the kernel; relaxed here.
inline void clear_bit(int nr, unsigned long* addr) {
  lockcheck::SchedulePointNamed("clear_bit");
  __atomic_fetch_and(addr, ~BIT_MASK(nr), __ATOMIC_RELAXED);
}

// Plain read of bit nr.
inline bool test_bit(int nr, const unsigned long* addr) {
  return ((*addr >> (nr % BITS_PER_LONG)) & 1UL) != 0;
}

// Index of the first zero bit of `word` (a plain value, read by the caller).
// Undefined in the kernel when there is no zero bit; the model returns
// BITS_PER_LONG then, so a caller bug shows as an out-of-range index rather
// than as undefined behaviour.
inline unsigned long ffz(unsigned long word) {
  return ~word == 0 ? BITS_PER_LONG : __builtin_ctzl(~word);
}

// Number of set bits (the kernel's hweight_long).
inline unsigned int hweight_long(unsigned long w) { return __builtin_popcountl(w); }

#endif  // FLOWCHECK_CORE_BITOPS_H_
