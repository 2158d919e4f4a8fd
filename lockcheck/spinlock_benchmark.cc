// Uncontended lock/unlock cost: a plain std::atomic test-and-set spinlock
// (the baseline, defined here), lockcheck's lock with checks compiled out
// (BasicSpinLock<false>, what spinlock_t is in the bench config) and with
// checks on (BasicSpinLock<true>: owner, held stack, class order and IRQ
// fast paths, schedule point). The goals: checks off within 1.2x of
// the plain lock, checks on within 3x, measured in one run:
//
//   lockcheck/bench_ratios.sh       # runs this under --config=bench, prints PASS/FAIL
#include <atomic>

#include "benchmark/benchmark.h"
#include "lockcheck/spinlock.h"

namespace {

class PlainSpinLock {
 public:
  void Lock() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) {
#if defined(__x86_64__)
        __builtin_ia32_pause();
#endif
      }
    }
  }
  void Unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

using Unchecked = lockcheck::BasicSpinLock<false>;
using Checked = lockcheck::BasicSpinLock<true>;

void BM_PlainAtomicSpinLock(benchmark::State& state) {
  PlainSpinLock lock;
  for (auto _ : state) {
    lock.Lock();
    lock.Unlock();
  }
}
BENCHMARK(BM_PlainAtomicSpinLock);

void BM_ChecksOff_SpinLock(benchmark::State& state) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  Unchecked lock;
  spin_lock_init(&lock);
  for (auto _ : state) {
    spin_lock(&lock);
    spin_unlock(&lock);
  }
}
BENCHMARK(BM_ChecksOff_SpinLock);

void BM_ChecksOff_SpinLockIrqsave(benchmark::State& state) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  Unchecked lock;
  spin_lock_init(&lock);
  for (auto _ : state) {
    unsigned long flags;
    spin_lock_irqsave(&lock, flags);
    spin_unlock_irqrestore(&lock, flags);
  }
}
BENCHMARK(BM_ChecksOff_SpinLockIrqsave);

void BM_ChecksOn_SpinLock(benchmark::State& state) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  Checked lock;
  spin_lock_init(&lock);
  for (auto _ : state) {
    spin_lock(&lock);
    spin_unlock(&lock);
  }
}
BENCHMARK(BM_ChecksOn_SpinLock);

void BM_ChecksOn_SpinLockIrqsave(benchmark::State& state) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  Checked lock;
  spin_lock_init(&lock);
  for (auto _ : state) {
    unsigned long flags;
    spin_lock_irqsave(&lock, flags);
    spin_unlock_irqrestore(&lock, flags);
  }
}
BENCHMARK(BM_ChecksOn_SpinLockIrqsave);

// The inner lock of s_lock -> exp_lock: every iteration checks the (known)
// order edge from the held outer lock.
void BM_ChecksOn_SpinLockUnderAnother(benchmark::State& state)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  Checked outer, inner;
  spin_lock_init(&outer);
  spin_lock_init(&inner);
  spin_lock(&outer);
  for (auto _ : state) {
    spin_lock(&inner);
    spin_unlock(&inner);
  }
  spin_unlock(&outer);
}
BENCHMARK(BM_ChecksOn_SpinLockUnderAnother);

}  // namespace
