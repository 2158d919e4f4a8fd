// The spinlock itself and the per-lock rules: owner tracking, assertions,
// bad unlocks, recursion on one instance, destroy-while-held, uninitialized
// locks, thread exit with locks held, and the schedule-point hook. Each rule
// is shown reported when broken and silent when followed.
#include "lockcheck/spinlock.h"

#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock-matchers.h"
#include "gtest/gtest.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/report.h"
#include "lockcheck/schedule.h"
#include "lockcheck/testing/kernel_locks.h"

namespace {

using ::lockcheck::Report;
using ::lockcheck::Rule;
using ::lockcheck_testing::hfi1_ctxtdata;
using ::lockcheck_testing::LockcheckTest;
using ::lockcheck_testing::LockHiddenFromAnalysis;
using ::lockcheck_testing::UnlockHiddenFromAnalysis;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class SpinLockTest : public LockcheckTest {};

struct Counter {
  Counter() { spin_lock_init(&lock); }
  spinlock_t lock;
  long value ABSL_GUARDED_BY(lock) = 0;
};

TEST_F(SpinLockTest, MutualExclusionAcrossThreadsIsSilent) {
  Counter c;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&c] {
      for (int i = 0; i < 20000; ++i) {
        unsigned long flags;
        spin_lock_irqsave(&c.lock, flags);
        lockdep_assert_held(&c.lock);
        ++c.value;
        spin_unlock_irqrestore(&c.lock, flags);
        lockdep_assert_not_held(&c.lock);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  spin_lock(&c.lock);
  EXPECT_EQ(c.value, 80000);
  spin_unlock(&c.lock);
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
}

TEST_F(SpinLockTest, TryLockFailsWhileHeldByAnyoneAndSucceedsWhenFree) {
  hfi1_ctxtdata rcd;
  if (!spin_trylock(&rcd.exp_lock)) FAIL() << "trylock of a free lock failed";
  EXPECT_TRUE(rcd.exp_lock.HeldByCurrentThread());
  bool again = spin_trylock(&rcd.exp_lock);  // self: fails, no report
  EXPECT_FALSE(again);
  bool other = true;
  std::thread t([&] {
    const bool took = spin_trylock(&rcd.exp_lock);
    if (took) spin_unlock(&rcd.exp_lock);
    other = took;
  });
  t.join();
  EXPECT_FALSE(other);
  spin_unlock(&rcd.exp_lock);
  EXPECT_FALSE(spin_is_locked(&rcd.exp_lock));
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
}

TEST_F(SpinLockTest, AssertHeldFailsInAThreadThatDoesNotHoldTheLock) {
  hfi1_ctxtdata rcd;
  spin_lock(&rcd.exp_lock);
  lockdep_assert_held(&rcd.exp_lock);
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
  std::thread other([&rcd] { lockdep_assert_held(&rcd.exp_lock); });
  other.join();
  spin_unlock(&rcd.exp_lock);

  std::vector<Report> r = ReportsOf(Rule::kAssertHeld);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_EQ(r[0].lock_class, "&rcd->exp_lock");
  EXPECT_EQ(r[0].lock, &rcd.exp_lock);
  EXPECT_THAT(r[0].message, HasSubstr("lockdep_assert_held(&rcd->exp_lock"));
  EXPECT_THAT(r[0].message, HasSubstr("holds it"));  // names the real holder
  EXPECT_TRUE(r[0].held.empty());
  EXPECT_EQ(rec_.reports().size(), 1u) << AllReports();
}

TEST_F(SpinLockTest, AssertHeldFailsWhenNobodyHoldsIt) {
  hfi1_ctxtdata rcd;
  lockdep_assert_held(&rcd.exp_lock);
  std::vector<Report> r = ReportsOf(Rule::kAssertHeld);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_THAT(r[0].message, HasSubstr("no thread holds it"));
  EXPECT_THAT(r[0].stack, HasSubstr("TestBody"));  // symbolized, caller first
}

TEST_F(SpinLockTest, AssertNotHeldFailsWhileHeld) {
  hfi1_ctxtdata rcd;
  lockdep_assert_not_held(&rcd.exp_lock);
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
  spin_lock(&rcd.exp_lock);
  lockdep_assert_not_held(&rcd.exp_lock);
  spin_unlock(&rcd.exp_lock);
  std::vector<Report> r = ReportsOf(Rule::kAssertNotHeld);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_EQ(r[0].lock_class, "&rcd->exp_lock");
  ASSERT_EQ(r[0].held.size(), 1u);
  EXPECT_THAT(r[0].held[0], StartsWith("&rcd->exp_lock ("));
}

TEST_F(SpinLockTest, UnlockOfALockNobodyHoldsIsReported) {
  hfi1_ctxtdata rcd;
  spin_lock(&rcd.exp_lock);
  spin_unlock(&rcd.exp_lock);
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
  UnlockHiddenFromAnalysis(&rcd.exp_lock);
  std::vector<Report> r = ReportsOf(Rule::kUnlockNotHeld);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_EQ(r[0].lock_class, "&rcd->exp_lock");
  EXPECT_THAT(r[0].message, HasSubstr("not held"));
  EXPECT_FALSE(spin_is_locked(&rcd.exp_lock));
}

TEST_F(SpinLockTest, UnlockByANonOwnerIsReportedAndSkipped) {
  hfi1_ctxtdata rcd;
  spin_lock(&rcd.exp_lock);
  std::thread intruder([&rcd] {
    lockcheck::SetThreadName("intruder");
    UnlockHiddenFromAnalysis(&rcd.exp_lock);
  });
  intruder.join();
  // The bad unlock was skipped: the owner still holds the lock.
  const bool still_held = rcd.exp_lock.HeldByCurrentThread();
  spin_unlock(&rcd.exp_lock);
  EXPECT_TRUE(still_held);
  std::vector<Report> r = ReportsOf(Rule::kUnlockNotOwner);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_THAT(r[0].thread, HasSubstr("\"intruder\""));
  EXPECT_THAT(r[0].message,
              HasSubstr("thread " + std::to_string(lockcheck::CurrentThreadId()) +
                        " holds it"));
  EXPECT_EQ(rec_.reports().size(), 1u) << AllReports();
}

TEST_F(SpinLockTest, RecursiveAcquisitionIsReportedInsteadOfHanging) {
  hfi1_ctxtdata rcd;
  spin_lock(&rcd.exp_lock);
  LockHiddenFromAnalysis(&rcd.exp_lock);  // would spin forever on a real spinlock
  spin_unlock(&rcd.exp_lock);  // the one real hold
  EXPECT_FALSE(spin_is_locked(&rcd.exp_lock));
  std::vector<Report> r = ReportsOf(Rule::kRecursiveLock);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_EQ(r[0].lock_class, "&rcd->exp_lock");
  ASSERT_EQ(r[0].held.size(), 1u);
  EXPECT_THAT(r[0].held[0], HasSubstr("acquired at"));
  EXPECT_THAT(r[0].message, HasSubstr("already holds"));
  EXPECT_EQ(rec_.reports().size(), 1u) << AllReports();
}

TEST_F(SpinLockTest, DestroyingAHeldLockIsReported) {
  auto rcd = std::make_unique<hfi1_ctxtdata>();
  spin_lock(&rcd->exp_lock);
  spin_unlock(&rcd->exp_lock);
  rcd.reset();
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();

  rcd = std::make_unique<hfi1_ctxtdata>();
  LockHiddenFromAnalysis(&rcd->exp_lock);
  const void* instance = &rcd->exp_lock;
  rcd.reset();
  std::vector<Report> r = ReportsOf(Rule::kDestroyHeldLock);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_EQ(r[0].lock, instance);
  EXPECT_EQ(r[0].lock_class, "&rcd->exp_lock");
  // The destroyed lock left this thread's held stack.
  EXPECT_THAT(lockcheck_testing::DescriptionOf(lockcheck::CurrentThreadId()),
              HasSubstr("holds no locks"));
  hfi1_ctxtdata fresh;
  spin_lock(&fresh.exp_lock);  // would be a same-class recursion otherwise
  spin_unlock(&fresh.exp_lock);
  EXPECT_EQ(rec_.reports().size(), 1u) << AllReports();
}

TEST_F(SpinLockTest, ALockUsedWithoutSpinLockInitIsReportedOnce) {
  spinlock_t lock;  // no spin_lock_init
  spin_lock(&lock);
  spin_unlock(&lock);
  spin_lock(&lock);
  lockdep_assert_held(&lock);  // owner tracking still works
  spin_unlock(&lock);
  std::vector<Report> r = ReportsOf(Rule::kUninitialized);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_EQ(r[0].lock_class, "<uninitialized>");
  EXPECT_THAT(r[0].message, HasSubstr("spin_lock_init"));
  EXPECT_EQ(rec_.reports().size(), 1u) << AllReports();
}

// A lock that outlives every test (its holder dies holding it).
spinlock_t* LeakedLock() {
  static spinlock_t* lock = [] {
    auto* l = new spinlock_t;
    spin_lock_init(l);
    return l;
  }();
  return lock;
}

TEST_F(SpinLockTest, AThreadExitingWithALockHeldIsReported) {
  hfi1_ctxtdata rcd;
  std::thread tidy([&rcd] {
    spin_lock(&rcd.exp_lock);
    spin_unlock(&rcd.exp_lock);
  });
  tidy.join();
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();

  std::thread leaky([] {
    lockcheck::SetThreadName("leaky");
    LockHiddenFromAnalysis(LeakedLock());
  });
  leaky.join();
  std::vector<Report> r = ReportsOf(Rule::kExitWithLocksHeld);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_THAT(r[0].thread, HasSubstr("\"leaky\""));
  EXPECT_EQ(r[0].lock, LeakedLock());
  ASSERT_EQ(r[0].held.size(), 1u);
  EXPECT_THAT(r[0].held[0], StartsWith("l ("));  // class named by spin_lock_init(l)
  EXPECT_THAT(r[0].message, HasSubstr("exiting while holding 1 lock"));
  EXPECT_THAT(lockcheck::DescribeAllThreads(), ::testing::Not(HasSubstr("leaky")));
}

TEST_F(SpinLockTest, ARepeatedViolationIsReportedOncePerSite) {
  hfi1_ctxtdata rcd;
  for (int i = 0; i < 100; ++i) lockdep_assert_held(&rcd.exp_lock);
  lockdep_assert_held(&rcd.exp_lock);  // another call site: its own report
  EXPECT_EQ(ReportsOf(Rule::kAssertHeld).size(), 2u) << AllReports();
}

// Tests run one after another in one process; each recording session must see
// a violation even if an earlier session already recorded the same one.
// One call site for lockcheck's per-site deduplication: noinline, and the
// empty asm after the call keeps it from becoming a tail call (whose return
// address would be the caller's, a different one per call).
__attribute__((noinline)) void AssertHeldAtOneSite(hfi1_ctxtdata* rcd) {
  lockdep_assert_held(&rcd->exp_lock);
  asm volatile("" ::: "memory");
}

TEST(RecordingSessions, EachSessionSeesAViolationAnEarlierOneSawToo) {
  hfi1_ctxtdata rcd;
  for (int session = 0; session < 2; ++session) {
    lockcheck::RecordingHandler rec;
    AssertHeldAtOneSite(&rcd);
    AssertHeldAtOneSite(&rcd);  // same site, same session: deduplicated
    EXPECT_EQ(rec.count(Rule::kAssertHeld), 1) << "session " << session;
  }
}

struct HookCall {
  lockcheck::SchedulePoint point;
  const void* lock;
  void* arg;
};
thread_local std::vector<HookCall>* hook_calls = nullptr;

void RecordHook(lockcheck::SchedulePoint point, const void* lock, void* arg) {
  if (hook_calls != nullptr) hook_calls->push_back({point, lock, arg});
}

TEST_F(SpinLockTest, TheScheduleHookRunsAtEveryAcquireAndRelease) {
  using lockcheck::SchedulePoint;
  hfi1_ctxtdata rcd;
  std::vector<HookCall> calls;
  hook_calls = &calls;
  int arg = 0;
  lockcheck::SetScheduleHook(&RecordHook, &arg);
  unsigned long flags;
  spin_lock(&rcd.exp_lock);
  spin_unlock(&rcd.exp_lock);
  spin_lock_irqsave(&rcd.exp_lock, flags);
  spin_unlock_irqrestore(&rcd.exp_lock, flags);
  if (spin_trylock(&rcd.exp_lock)) spin_unlock(&rcd.exp_lock);
  lockcheck::SetScheduleHook(nullptr, nullptr);
  spin_lock(&rcd.exp_lock);  // no hook any more
  spin_unlock(&rcd.exp_lock);
  hook_calls = nullptr;

  ASSERT_EQ(calls.size(), 6u);
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].point,
              i % 2 == 1 ? SchedulePoint::kAfterRelease
              : i == 4   ? SchedulePoint::kBeforeTryLock
                         : SchedulePoint::kBeforeAcquire)
        << "call " << i;
    EXPECT_EQ(calls[i].lock, &rcd.exp_lock);
    EXPECT_EQ(calls[i].arg, &arg);
  }
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
}

}  // namespace
