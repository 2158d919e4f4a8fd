#include "lockcheck/spinlock.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/report.h"

namespace {

struct Counter {
  spinlock_t lock;
  long value ABSL_GUARDED_BY(lock) = 0;
};

TEST(SpinLock, MutualExclusionAcrossThreads) {
  Counter c;
  spin_lock_init(&c.lock);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&c] {
      for (int i = 0; i < 20000; ++i) {
        unsigned long flags;
        spin_lock_irqsave(&c.lock, flags);
        ++c.value;
        spin_unlock_irqrestore(&c.lock, flags);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  spin_lock(&c.lock);
  EXPECT_EQ(c.value, 80000);
  spin_unlock(&c.lock);
}

TEST(SpinLock, AssertHeldIsPerThread) {
  spinlock_t lock;
  spin_lock_init(&lock);
  lockcheck::RecordingHandler rec;
  spin_lock(&lock);
  lockdep_assert_held(&lock);
  EXPECT_EQ(rec.reports().size(), 0u);
  std::thread other([&lock] { lockdep_assert_held(&lock); });
  other.join();
  spin_unlock(&lock);
  EXPECT_EQ(rec.count(lockcheck::Rule::kAssertHeld), 1);
}

}  // namespace
