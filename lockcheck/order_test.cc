// Lock-order rules over classes: inversions (2- and 3-class cycles, across
// threads, no deadlock needed), same-class recursion ("never two QPs'
// s_locks at once"), spin_lock_nested, and trylock's special place.
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock-matchers.h"
#include "gtest/gtest.h"
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
using ::testing::StartsWith;

class OrderTest : public LockcheckTest {};

// Named helpers, so the stacks in reports can be checked by function name.
ABSL_ATTRIBUTE_NOINLINE void SendEngineTakesSThenExp(rvt_qp* qp, hfi1_ctxtdata* rcd) {
  unsigned long f1, f2;
  spin_lock_irqsave(&qp->s_lock, f1);
  spin_lock_irqsave(&rcd->exp_lock, f2);
  spin_unlock_irqrestore(&rcd->exp_lock, f2);
  spin_unlock_irqrestore(&qp->s_lock, f1);
}

ABSL_ATTRIBUTE_NOINLINE void BuggyTakesExpThenS(rvt_qp* qp, hfi1_ctxtdata* rcd) {
  unsigned long f1, f2;
  spin_lock_irqsave(&rcd->exp_lock, f1);
  spin_lock_irqsave(&qp->s_lock, f2);
  spin_unlock_irqrestore(&qp->s_lock, f2);
  spin_unlock_irqrestore(&rcd->exp_lock, f1);
}

ABSL_ATTRIBUTE_NOINLINE void TimerTakesRThenS(rvt_qp* qp) {
  spin_lock(&qp->r_lock);
  spin_lock(&qp->s_lock);
  spin_unlock(&qp->s_lock);
  spin_unlock(&qp->r_lock);
}

TEST_F(OrderTest, TheDriversOrderFromManyThreadsIsSilent) {
  hfi1_ctxtdata rcds[2];
  rvt_qp qps[4];
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        rvt_qp* qp = &qps[(t + i) % 4];
        hfi1_ctxtdata* rcd = &rcds[i % 2];
        spin_lock(&qp->r_lock);  // r_lock -> s_lock -> exp_lock
        SendEngineTakesSThenExp(qp, rcd);
        spin_unlock(&qp->r_lock);
        TimerTakesRThenS(qp);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
}

TEST_F(OrderTest, AnInversionIsReportedWithBothOrdersAndWhereEachWasSeen) {
  hfi1_ctxtdata rcd;
  rvt_qp qp;
  SendEngineTakesSThenExp(&qp, &rcd);
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
  BuggyTakesExpThenS(&qp, &rcd);  // no deadlock: one thread; still reported

  std::vector<Report> r = ReportsOf(Rule::kOrderInversion);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  const Report& inv = r[0];
  EXPECT_EQ(inv.lock_class, "&qp->s_lock");
  EXPECT_EQ(inv.lock, &qp.s_lock);
  EXPECT_THAT(inv.message, HasSubstr("new order:      &rcd->exp_lock -> &qp->s_lock"));
  EXPECT_THAT(inv.message, HasSubstr("existing order: &qp->s_lock -> &rcd->exp_lock"));
  // Where the existing order was first seen, and where the new one is.
  EXPECT_THAT(inv.message, HasSubstr("SendEngineTakesSThenExp"));
  EXPECT_THAT(inv.stack, StartsWith("    #0 "));
  EXPECT_THAT(inv.stack, HasSubstr("BuggyTakesExpThenS"));
  EXPECT_THAT(inv.stack, ::testing::Not(HasSubstr("lockcheck::")));
  ASSERT_EQ(inv.held.size(), 1u);
  EXPECT_THAT(inv.held[0], StartsWith("&rcd->exp_lock ("));
  EXPECT_THAT(inv.held[0], HasSubstr("acquired at"));
  EXPECT_THAT(inv.held[0], HasSubstr("BuggyTakesExpThenS"));
  EXPECT_EQ(rec_.reports().size(), 1u) << AllReports();
}

TEST_F(OrderTest, AnInversionAcrossThreadsNamesBothThreads) {
  hfi1_ctxtdata rcd;
  rvt_qp qp1, qp2;  // different instances, same classes
  std::thread sender([&] {
    lockcheck::SetThreadName("sender");
    SendEngineTakesSThenExp(&qp1, &rcd);
  });
  sender.join();
  std::thread buggy([&] {
    lockcheck::SetThreadName("buggy");
    BuggyTakesExpThenS(&qp2, &rcd);
  });
  buggy.join();
  std::vector<Report> r = ReportsOf(Rule::kOrderInversion);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_THAT(r[0].thread, HasSubstr("\"buggy\""));
  EXPECT_THAT(r[0].message, HasSubstr("first seen in thread"));
  EXPECT_THAT(r[0].message, HasSubstr("\"sender\""));
}

// A thread's outermost frames are the C library's thread start, which a
// stripped libc (Debian's) has no symbol for: such a frame names its object
// and offset, as the sanitizers print it, not "(unknown)".
TEST_F(OrderTest, AFrameWithoutASymbolNamesItsObjectAndOffset) {
  hfi1_ctxtdata rcd;
  rvt_qp qp1, qp2;
  SendEngineTakesSThenExp(&qp1, &rcd);
  std::thread buggy([&] { BuggyTakesExpThenS(&qp2, &rcd); });
  buggy.join();
  std::vector<Report> r = ReportsOf(Rule::kOrderInversion);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_THAT(r[0].stack, ::testing::ContainsRegex(
                              "#[0-9]+ 0x[0-9a-f]+ \\(libc\\.so\\.6\\+0x[0-9a-f]+\\)\n"))
      << r[0].stack;
  EXPECT_THAT(r[0].stack, ::testing::Not(HasSubstr("(unknown)"))) << r[0].stack;
}

TEST_F(OrderTest, AThreeClassCycleIsReportedWithTheWholeExistingPath) {
  hfi1_ctxtdata rcd;
  rvt_qp qp;
  TimerTakesRThenS(&qp);              // r_lock -> s_lock
  SendEngineTakesSThenExp(&qp, &rcd);  // s_lock -> exp_lock
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
  spin_lock(&rcd.exp_lock);  // exp_lock -> r_lock closes the cycle
  spin_lock(&qp.r_lock);
  spin_unlock(&qp.r_lock);
  spin_unlock(&rcd.exp_lock);

  std::vector<Report> r = ReportsOf(Rule::kOrderInversion);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  const std::string& m = r[0].message;
  EXPECT_THAT(m, HasSubstr("new order:      &rcd->exp_lock -> &qp->r_lock"));
  EXPECT_THAT(m, HasSubstr("existing order: &qp->r_lock -> &qp->s_lock -> &rcd->exp_lock"));
  EXPECT_THAT(m, HasSubstr("&qp->r_lock -> &qp->s_lock, first seen in"));
  EXPECT_THAT(m, HasSubstr("TimerTakesRThenS"));
  EXPECT_THAT(m, HasSubstr("&qp->s_lock -> &rcd->exp_lock, first seen in"));
  EXPECT_THAT(m, HasSubstr("SendEngineTakesSThenExp"));
}

TEST_F(OrderTest, AnInversionIsReportedOncePerClassPair) {
  hfi1_ctxtdata rcd;
  rvt_qp qp;
  SendEngineTakesSThenExp(&qp, &rcd);
  for (int i = 0; i < 50; ++i) BuggyTakesExpThenS(&qp, &rcd);
  EXPECT_EQ(rec_.reports().size(), 1u) << AllReports();
}

TEST_F(OrderTest, TwoLocksOfOneClassAtOnceAreReported) {
  rvt_qp qp1, qp2;
  spin_lock(&qp1.s_lock);
  spin_lock(&qp2.s_lock);  // "never hold two QPs' s_locks at once"
  spin_unlock(&qp2.s_lock);
  spin_unlock(&qp1.s_lock);
  std::vector<Report> r = ReportsOf(Rule::kRecursiveClass);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_EQ(r[0].lock_class, "&qp->s_lock");
  EXPECT_EQ(r[0].lock, &qp2.s_lock);
  char held[64];
  std::snprintf(held, sizeof held, "%p", static_cast<const void*>(&qp1.s_lock));
  EXPECT_THAT(r[0].message, HasSubstr(held));  // names the instance already held
  ASSERT_EQ(r[0].held.size(), 1u);
  EXPECT_THAT(r[0].held[0], HasSubstr(held));
  EXPECT_EQ(rec_.reports().size(), 1u) << AllReports();
}

TEST_F(OrderTest, SpinLockNestedAllowsOrderedSameClassNesting) {
  rvt_qp qp1, qp2;
  spin_lock(&qp1.s_lock);
  spin_lock_nested(&qp2.s_lock, SINGLE_DEPTH_NESTING);
  lockdep_assert_held(&qp2.s_lock);
  std::string me = lockcheck_testing::DescriptionOf(lockcheck::CurrentThreadId());
  spin_unlock(&qp2.s_lock);
  spin_unlock(&qp1.s_lock);
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
  EXPECT_THAT(me, HasSubstr("holds 2 locks: &qp->s_lock ("));
  EXPECT_THAT(me, HasSubstr(", &qp->s_lock/1 ("));
}

TEST_F(OrderTest, ASubclassIsItsOwnClassInTheOrderGraph) {
  rvt_qp qp1, qp2;
  spin_lock(&qp1.s_lock);
  spin_lock_nested(&qp2.s_lock, SINGLE_DEPTH_NESTING);  // s_lock -> s_lock/1
  spin_unlock(&qp2.s_lock);
  spin_unlock(&qp1.s_lock);
  unsigned long flags;
  spin_lock_irqsave_nested(&qp2.s_lock, flags, SINGLE_DEPTH_NESTING);
  spin_lock(&qp1.s_lock);  // s_lock/1 -> s_lock: inversion
  spin_unlock(&qp1.s_lock);
  spin_unlock_irqrestore(&qp2.s_lock, flags);
  std::vector<Report> r = ReportsOf(Rule::kOrderInversion);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_THAT(r[0].message, HasSubstr("new order:      &qp->s_lock/1 -> &qp->s_lock"));
}

TEST_F(OrderTest, TrylockAddsNoOrderEdgeButOrdersWhatFollowsIt) {
  hfi1_ctxtdata rcd;
  rvt_qp qp;
  SendEngineTakesSThenExp(&qp, &rcd);  // s_lock -> exp_lock
  // exp_lock then trylock s_lock: cannot deadlock (trylock never waits).
  spin_lock(&rcd.exp_lock);
  const bool took_s = spin_trylock(&qp.s_lock);
  EXPECT_TRUE(took_s);
  if (took_s) spin_unlock(&qp.s_lock);
  spin_unlock(&rcd.exp_lock);
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();

  // r_lock, trylock exp_lock, then s_lock: s_lock is ordered after both the
  // trylocked exp_lock and the r_lock under it (lockdep's check_prevs_add).
  spin_lock(&qp.r_lock);
  const bool took_exp = spin_trylock(&rcd.exp_lock);
  EXPECT_TRUE(took_exp);
  if (took_exp) {
    spin_lock(&qp.s_lock);  // exp_lock -> s_lock inverts s_lock -> exp_lock
    spin_unlock(&qp.s_lock);
    spin_unlock(&rcd.exp_lock);
  }
  spin_unlock(&qp.r_lock);
  std::vector<Report> r = ReportsOf(Rule::kOrderInversion);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_THAT(r[0].message, HasSubstr("new order:      &rcd->exp_lock -> &qp->s_lock"));
  ASSERT_EQ(r[0].held.size(), 2u);
  EXPECT_THAT(r[0].held[0], StartsWith("&qp->r_lock ("));  // outermost first
  EXPECT_THAT(r[0].held[1], StartsWith("&rcd->exp_lock ("));
}

TEST_F(OrderTest, ReleasingOutOfOrderKeepsTheHeldStackRight) {
  hfi1_ctxtdata rcd;
  rvt_qp qp;
  spin_lock(&qp.r_lock);
  spin_lock(&qp.s_lock);
  spin_unlock(&qp.r_lock);  // not LIFO: allowed
  spin_lock(&rcd.exp_lock);  // held: s_lock only -> edge s_lock -> exp_lock
  EXPECT_THAT(lockcheck_testing::DescriptionOf(lockcheck::CurrentThreadId()),
              HasSubstr("holds 2 locks: &qp->s_lock ("));
  spin_unlock(&rcd.exp_lock);
  spin_unlock(&qp.s_lock);
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
  BuggyTakesExpThenS(&qp, &rcd);
  EXPECT_EQ(ReportsOf(Rule::kOrderInversion).size(), 1u) << AllReports();
}

TEST_F(OrderTest, ResetForTestingForgetsLearnedOrders) {
  hfi1_ctxtdata rcd;
  rvt_qp qp;
  SendEngineTakesSThenExp(&qp, &rcd);
  lockcheck::ResetForTesting();
  BuggyTakesExpThenS(&qp, &rcd);  // now the first order seen: no cycle
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
}

}  // namespace
