// The inline fast path (internal/lock_state.h) must step aside whenever an
// acquisition or release is not the common case, also once that common case
// has been seen many times: each test first warms the path up with legal
// locking, then breaks a rule that only a check past the innermost held lock,
// past a trylock, or in the IRQ restore of an unlock can see.
#include <string>

#include "gmock/gmock-matchers.h"
#include "gtest/gtest.h"
#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/report.h"
#include "lockcheck/spinlock.h"
#include "lockcheck/testing/kernel_locks.h"

namespace {

using ::lockcheck::Report;
using ::lockcheck::Rule;
using ::lockcheck_testing::hfi1_ctxtdata;
using ::lockcheck_testing::LockcheckTest;
using ::lockcheck_testing::rvt_qp;
using ::testing::HasSubstr;

class FastPathTest : public LockcheckTest {};

constexpr int kWarmUp = 100;

ABSL_ATTRIBUTE_NOINLINE void RThenS(rvt_qp* qp) {
  spin_lock(&qp->r_lock);
  spin_lock(&qp->s_lock);
  spin_unlock(&qp->s_lock);
  spin_unlock(&qp->r_lock);
}

// Held: r_lock, s_lock; then a second r_lock. The order s_lock -> r_lock is
// already known (and was reported as an inversion), so only the scan of the
// held locks below the innermost one finds the second r_lock.
TEST_F(FastPathTest, ASecondLockOfAClassHeldBelowTheInnermostIsReported) {
  rvt_qp qp1, qp2;
  spin_lock(&qp1.s_lock);  // s_lock -> r_lock
  spin_lock(&qp1.r_lock);
  spin_unlock(&qp1.r_lock);
  spin_unlock(&qp1.s_lock);
  for (int i = 0; i < kWarmUp; ++i) RThenS(&qp1);  // r_lock -> s_lock (inversion, once)
  ASSERT_EQ(ReportsOf(Rule::kOrderInversion).size(), 1u) << AllReports();
  ASSERT_EQ(rec_.reports().size(), 1u) << AllReports();

  spin_lock(&qp1.r_lock);
  spin_lock(&qp1.s_lock);
  spin_lock(&qp2.r_lock);  // a second r_lock, under s_lock
  spin_unlock(&qp2.r_lock);
  spin_unlock(&qp1.s_lock);
  spin_unlock(&qp1.r_lock);
  std::vector<Report> r = ReportsOf(Rule::kRecursiveClass);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_EQ(r[0].lock, &qp2.r_lock);
  EXPECT_EQ(r[0].lock_class, "&qp->r_lock");
}

// Held: r_lock, then exp_lock by trylock; then s_lock. exp_lock -> s_lock is
// known, but lockdep orders s_lock after the r_lock below the trylock too,
// and s_lock -> r_lock is known: an inversion only that edge shows.
TEST_F(FastPathTest, AnEdgeFromBelowATrylockedLockIsChecked) {
  hfi1_ctxtdata rcd;
  rvt_qp qp;
  for (int i = 0; i < kWarmUp; ++i) {
    spin_lock(&rcd.exp_lock);  // exp_lock -> s_lock
    spin_lock(&qp.s_lock);
    spin_unlock(&qp.s_lock);
    spin_unlock(&rcd.exp_lock);
    spin_lock(&qp.s_lock);  // s_lock -> r_lock
    spin_lock(&qp.r_lock);
    spin_unlock(&qp.r_lock);
    spin_unlock(&qp.s_lock);
  }
  ASSERT_TRUE(rec_.reports().empty()) << AllReports();

  spin_lock(&qp.r_lock);
  if (spin_trylock(&rcd.exp_lock)) {
    spin_lock(&qp.s_lock);  // r_lock -> s_lock, past the trylocked exp_lock
    spin_unlock(&qp.s_lock);
    spin_unlock(&rcd.exp_lock);
  } else {
    ADD_FAILURE() << "trylock of a free lock failed";
  }
  spin_unlock(&qp.r_lock);
  std::vector<Report> r = ReportsOf(Rule::kOrderInversion);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_THAT(r[0].message, HasSubstr("new order:      &qp->r_lock -> &qp->s_lock"));
}

// spin_unlock_irqrestore of the innermost lock with flags saying "IRQs were
// on" while an IRQ-safe lock is still held: that lock is now held with IRQs
// on (lockdep's mark_held_locks), whichever path the unlock took.
TEST_F(FastPathTest, AnUnlockThatTurnsIrqsOnWhileAnIrqSafeLockIsHeldIsReported) {
  hfi1_ctxtdata rcd;
  rvt_qp qp;
  lockcheck::DeclareHardirqSafe(&rcd.exp_lock);
  unsigned long flags;
  for (int i = 0; i < kWarmUp; ++i) {
    spin_lock_irqsave(&rcd.exp_lock, flags);
    spin_lock(&qp.s_lock);
    spin_unlock(&qp.s_lock);
    spin_unlock_irqrestore(&rcd.exp_lock, flags);
  }
  ASSERT_TRUE(rec_.reports().empty()) << AllReports();

  spin_lock_irqsave(&rcd.exp_lock, flags);  // flags: IRQs were on
  spin_lock(&qp.s_lock);
  spin_unlock_irqrestore(&qp.s_lock, flags);  // IRQs on, exp_lock still held
  EXPECT_FALSE(irqs_disabled());
  spin_unlock(&rcd.exp_lock);
  std::vector<Report> r = ReportsOf(Rule::kIrqSafety);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_EQ(r[0].lock_class, "&rcd->exp_lock");
}

// void, so that the symbolizer demangles their names.
ABSL_ATTRIBUTE_NOINLINE void HoldSAndDescribe(rvt_qp* qp, std::string* me) {
  spin_lock(&qp->s_lock);
  *me = lockcheck_testing::DescriptionOf(lockcheck::CurrentThreadId());
  spin_unlock(&qp->s_lock);
}

ABSL_ATTRIBUTE_NOINLINE void HoldRAndDescribe(rvt_qp* qp, std::string* me) {
  spin_lock(&qp->r_lock);
  HoldSAndDescribe(qp, me);
  spin_unlock(&qp->r_lock);
}

// The call site recorded inline is a point in the function that called
// spin_lock(), not in lockcheck.
TEST_F(FastPathTest, EachHeldLockNamesTheFunctionThatTookIt) {
  rvt_qp qp;
  std::string me;
  for (int i = 0; i < kWarmUp; ++i) HoldRAndDescribe(&qp, &me);
  EXPECT_THAT(me, testing::ContainsRegex("&qp->r_lock \\(0x[0-9a-f]+\\) acquired at "
                                         "[^,]*HoldRAndDescribe\\(\\), &qp->s_lock "
                                         "\\(0x[0-9a-f]+\\) acquired at [^,;]*HoldSAndDescribe\\(\\)$"));
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
}

}  // namespace
