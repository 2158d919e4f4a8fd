// DescribeAllThreads (what a watchdog prints for a hang) and the default
// report handler (print, then abort).
#include <atomic>
#include <sched.h>
#include <string>
#include <thread>

#include "gmock/gmock-matchers.h"
#include "gtest/gtest.h"
#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/report.h"
#include "lockcheck/spinlock.h"
#include "lockcheck/testing/kernel_locks.h"

namespace {

using ::lockcheck_testing::DescriptionOf;
using ::lockcheck_testing::hfi1_ctxtdata;
using ::lockcheck_testing::LockcheckTest;
using ::lockcheck_testing::rvt_qp;
using ::testing::HasSubstr;
using ::testing::Not;

class DescribeTest : public LockcheckTest {};

std::string Hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

TEST_F(DescribeTest, ShowsAThreadSpinningOnALockAnotherThreadHolds) {
  lockcheck::SetThreadName("holder");
  hfi1_ctxtdata rcd;
  rvt_qp qp;
  spin_lock(&qp.s_lock);
  spin_lock(&rcd.exp_lock);
  std::atomic<uint32_t> waiter_id{0};
  std::thread waiter([&] {
    lockcheck::SetThreadName("waiter");
    waiter_id.store(lockcheck::CurrentThreadId(), std::memory_order_relaxed);
    spin_lock(&rcd.exp_lock);  // spins until the holder lets go
    spin_unlock(&rcd.exp_lock);
  });
  // No timing assumption: wait until the waiter is seen spinning, however
  // long that takes (the test's own timeout bounds it).
  std::string line;
  while (true) {
    uint32_t id = waiter_id.load(std::memory_order_relaxed);
    if (id != 0) {
      line = DescriptionOf(id);
      if (line.find("waiting for") != std::string::npos) break;
    }
    sched_yield();
  }
  std::string holder = DescriptionOf(lockcheck::CurrentThreadId());
  spin_unlock(&rcd.exp_lock);
  spin_unlock(&qp.s_lock);
  waiter.join();

  EXPECT_THAT(line, HasSubstr("\"waiter\" (irqs on): holds no locks"));
  EXPECT_THAT(line, HasSubstr("waiting for &rcd->exp_lock (" + Hex(&rcd.exp_lock) +
                              ") held by thread " +
                              std::to_string(lockcheck::CurrentThreadId()) +
                              " \"holder\""));
  // Outermost first, each with where it was taken.
  EXPECT_THAT(holder, HasSubstr("\"holder\" (irqs on): holds 2 locks: &qp->s_lock (" +
                                Hex(&qp.s_lock) + ") acquired at "));
  EXPECT_THAT(holder, HasSubstr(", &rcd->exp_lock (" + Hex(&rcd.exp_lock) +
                                ") acquired at "));
  EXPECT_THAT(holder, HasSubstr("TestBody"));
  EXPECT_THAT(holder, Not(HasSubstr("waiting for")));
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
}

TEST_F(DescribeTest, ShowsIrqStateAndForgetsExitedThreads) {
  std::string inside;
  std::thread t([&] {
    lockcheck::SetThreadName("short-lived");
    lockcheck::HardirqScope irq;
    inside = DescriptionOf(lockcheck::CurrentThreadId());
  });
  t.join();
  EXPECT_THAT(inside, HasSubstr("\"short-lived\" (in hardirq): holds no locks"));
  EXPECT_THAT(lockcheck::DescribeAllThreads(), Not(HasSubstr("short-lived")));
}

// ---- The default handler -------------------------------------------------

ABSL_ATTRIBUTE_NOINLINE void InvertOrder() {
  hfi1_ctxtdata rcd;
  rvt_qp qp;
  spin_lock(&qp.s_lock);
  spin_lock(&rcd.exp_lock);
  spin_unlock(&rcd.exp_lock);
  spin_unlock(&qp.s_lock);
  spin_lock(&rcd.exp_lock);
  spin_lock(&qp.s_lock);  // the default handler aborts here
  spin_unlock(&qp.s_lock);
  spin_unlock(&rcd.exp_lock);
}

TEST(DefaultHandlerDeathTest, PrintsTheReportAndAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  lockcheck::ResetForTesting();
  EXPECT_DEATH(InvertOrder(),
               "lockcheck: lock-order-inversion on &qp->s_lock(.|\n)*"
               "existing order: &qp->s_lock -> &rcd->exp_lock(.|\n)*"
               "locks held by thread [0-9]+ \\(outermost first\\):\n"
               "  #0 &rcd->exp_lock \\(0x[0-9a-f]+\\) acquired at (.|\n)*"
               "stack of thread [0-9]+:\n    #0 (.|\n)*InvertOrder(.|\n)*"
               "all threads known to lockcheck:(.|\n)*aborting");
}

TEST(DefaultHandlerDeathTest, AbortsOnAFailedAssertion) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  lockcheck::ResetForTesting();
  hfi1_ctxtdata rcd;
  EXPECT_DEATH(lockdep_assert_held(&rcd.exp_lock),
               "lockdep-assert-held-failed on &rcd->exp_lock");
}

}  // namespace
