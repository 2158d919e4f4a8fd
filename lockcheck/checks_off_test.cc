// With LOCKCHECK_DISABLE_CHECKS (the `bench` config) spinlock_t is a plain
// test-and-set spinlock and every kernel wrapper is inline: this test is
// compiled with checks off in EVERY config and linked WITHOUT lockcheck's
// library (see BUILD), so a wrapper that still called into lockcheck would
// fail to link. The compile-time annotations stay.
#include <atomic>
#include <thread>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "lockcheck/config.h"
#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/spinlock.h"

static_assert(!lockcheck::kChecksEnabled, "this test is built with checks off");
static_assert(std::is_same_v<spinlock_t, lockcheck::BasicSpinLock<false>>);
static_assert(sizeof(spinlock_t) == sizeof(std::atomic<bool>),
              "an unchecked spinlock is one atomic flag");

namespace {

struct hfi1_ctxtdata {
  spinlock_t exp_lock;
  long flows ABSL_GUARDED_BY(exp_lock) = 0;
};

TEST(ChecksOff, KernelWrappersStillExcludeEachOther) {
  hfi1_ctxtdata rcd;
  spin_lock_init(&rcd.exp_lock);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&rcd] {
      for (int i = 0; i < 10000; ++i) {
        unsigned long flags;
        spin_lock_irqsave(&rcd.exp_lock, flags);
        lockdep_assert_held(&rcd.exp_lock);
        ++rcd.flows;
        spin_unlock_irqrestore(&rcd.exp_lock, flags);
        spin_lock_irq(&rcd.exp_lock);
        ++rcd.flows;
        spin_unlock_irq(&rcd.exp_lock);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  spin_lock(&rcd.exp_lock);
  EXPECT_EQ(rcd.flows, 80000);
  spin_unlock(&rcd.exp_lock);
}

TEST(ChecksOff, TrylockAndStateQueries) {
  spinlock_t lock;
  spin_lock_init(&lock);
  EXPECT_FALSE(spin_is_locked(&lock));
  if (spin_trylock(&lock)) {
    EXPECT_TRUE(spin_is_locked(&lock));
    bool again = spin_trylock(&lock);
    EXPECT_FALSE(again);
    spin_unlock(&lock);
  } else {
    ADD_FAILURE() << "trylock of a free lock failed";
  }
  EXPECT_FALSE(spin_is_locked(&lock));
}

TEST(ChecksOff, IrqEmulationAndAssertionsAreNoOps) {
  unsigned long flags = 123;
  local_irq_save(flags);
  EXPECT_EQ(flags, 0u);
  EXPECT_TRUE(irqs_disabled());  // so an assertion on it passes
  local_irq_restore(flags);
  local_irq_enable();
  EXPECT_TRUE(irqs_disabled());
  spinlock_t lock;
  spin_lock_init(&lock);
  lockdep_assert_not_held(&lock);
  lockdep_assert_held(&lock);  // nothing is known about owners: passes
  EXPECT_TRUE(lock.HeldByCurrentThread());
}

}  // namespace
