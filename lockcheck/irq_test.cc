// lockdep's hardirq rules on the emulated per-thread IRQ state: a class used
// in hardirq context must never be taken (or held) with IRQs on, and an
// IRQ-safe class must never be held while taking an IRQ-unsafe one. Both
// orders of discovery, and the driver's legal patterns staying silent.
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock-matchers.h"
#include "gtest/gtest.h"
#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/report.h"
#include "lockcheck/spinlock.h"
#include "lockcheck/testing/kernel_locks.h"

namespace {

using ::lockcheck::HardirqScope;
using ::lockcheck::Report;
using ::lockcheck::Rule;
using ::lockcheck_testing::hfi1_ctxtdata;
using ::lockcheck_testing::LockcheckTest;
using ::lockcheck_testing::rvt_qp;
using ::testing::HasSubstr;

class IrqTest : public LockcheckTest {};

// A lock only ever taken with IRQs on (an "IRQ-unsafe" class).
struct hfi1_devdata {
  hfi1_devdata() { Init(this); }
  static void Init(hfi1_devdata* dd) {
    spin_lock_init(&dd->uctxt_lock);
    spin_lock_init(&dd->sc_lock);
  }
  spinlock_t uctxt_lock;
  spinlock_t sc_lock;
};

ABSL_ATTRIBUTE_NOINLINE void ReceiveInterrupt(hfi1_ctxtdata* rcd) {
  HardirqScope irq;
  spin_lock(&rcd->exp_lock);  // IRQs are off in hardirq context
  spin_unlock(&rcd->exp_lock);
}

ABSL_ATTRIBUTE_NOINLINE void BuggyPlainLockWithIrqsOn(hfi1_ctxtdata* rcd) {
  spin_lock(&rcd->exp_lock);
  spin_unlock(&rcd->exp_lock);
}

TEST_F(IrqTest, TheDriversIrqPatternsAreSilent) {
  hfi1_ctxtdata rcd;
  rvt_qp qp;
  std::thread irq([&] {
    for (int i = 0; i < 2000; ++i) ReceiveInterrupt(&rcd);
  });
  std::thread sender([&] {
    for (int i = 0; i < 2000; ++i) {
      unsigned long f1, f2;
      spin_lock_irqsave(&qp.s_lock, f1);
      spin_lock(&rcd.exp_lock);  // _tid_rdma_flush_wait: IRQs already off
      spin_unlock(&rcd.exp_lock);
      spin_lock_irqsave(&rcd.exp_lock, f2);  // hfi1_kern_setup_hw_flow
      spin_unlock_irqrestore(&rcd.exp_lock, f2);
      spin_unlock_irqrestore(&qp.s_lock, f1);
      spin_lock_irq(&rcd.exp_lock);
      spin_unlock_irq(&rcd.exp_lock);
    }
  });
  irq.join();
  sender.join();
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
}

TEST_F(IrqTest, HardirqUseThenIrqsOnIsReported) {
  hfi1_ctxtdata rcd;
  std::thread irq([&] {
    lockcheck::SetThreadName("rcv-irq");
    ReceiveInterrupt(&rcd);
  });
  irq.join();
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
  BuggyPlainLockWithIrqsOn(&rcd);
  BuggyPlainLockWithIrqsOn(&rcd);

  std::vector<Report> r = ReportsOf(Rule::kIrqSafety);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_EQ(r[0].lock_class, "&rcd->exp_lock");
  const std::string& m = r[0].message;
  EXPECT_THAT(m, HasSubstr("inconsistent {IN-HARDIRQ} -> {HARDIRQ-ON} usage"));
  EXPECT_THAT(m, HasSubstr("{IN-HARDIRQ}: taken in hardirq context (IRQ-safe), first in thread"));
  EXPECT_THAT(m, HasSubstr("\"rcv-irq\""));
  EXPECT_THAT(m, HasSubstr("ReceiveInterrupt"));
  EXPECT_THAT(m, HasSubstr("{HARDIRQ-ON}: taken or held with IRQs enabled (IRQ-unsafe), by the "
                           "acquisition being reported"));
  EXPECT_THAT(r[0].stack, HasSubstr("BuggyPlainLockWithIrqsOn"));
  EXPECT_EQ(rec_.reports().size(), 1u) << AllReports();
}

TEST_F(IrqTest, IrqsOnThenHardirqUseIsReported) {
  hfi1_ctxtdata rcd;
  BuggyPlainLockWithIrqsOn(&rcd);
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
  ReceiveInterrupt(&rcd);
  std::vector<Report> r = ReportsOf(Rule::kIrqSafety);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_THAT(r[0].message, HasSubstr("(IRQ-unsafe), first in thread"));
  EXPECT_THAT(r[0].message, HasSubstr("BuggyPlainLockWithIrqsOn"));
  EXPECT_THAT(r[0].message, HasSubstr("(IRQ-safe), by the acquisition being reported"));
  EXPECT_THAT(r[0].stack, HasSubstr("ReceiveInterrupt"));
}

TEST_F(IrqTest, ReenablingIrqsWhileHoldingAnIrqSafeLockIsReported) {
  hfi1_ctxtdata rcd;
  ReceiveInterrupt(&rcd);
  spin_lock_irq(&rcd.exp_lock);
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
  local_irq_enable();  // now held with IRQs on
  spin_unlock(&rcd.exp_lock);
  EXPECT_EQ(ReportsOf(Rule::kIrqSafety).size(), 1u) << AllReports();
}

TEST_F(IrqTest, TrylockCountsAsAUse) {
  hfi1_ctxtdata rcd;
  {
    HardirqScope irq;
    if (spin_trylock(&rcd.exp_lock)) spin_unlock(&rcd.exp_lock);
  }
  if (spin_trylock(&rcd.exp_lock)) spin_unlock(&rcd.exp_lock);
  EXPECT_EQ(ReportsOf(Rule::kIrqSafety).size(), 1u) << AllReports();
}

TEST_F(IrqTest, SafeToUnsafeIsReportedWhenTheEdgeComesLast) {
  hfi1_ctxtdata rcd;
  hfi1_devdata dd;
  ReceiveInterrupt(&rcd);        // exp_lock: IRQ-safe
  spin_lock(&dd.uctxt_lock);     // uctxt_lock: IRQ-unsafe
  spin_unlock(&dd.uctxt_lock);
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
  unsigned long flags;
  spin_lock_irqsave(&rcd.exp_lock, flags);
  spin_lock(&dd.uctxt_lock);  // IRQs off here, but uctxt_lock is taken with them on elsewhere
  spin_unlock(&dd.uctxt_lock);
  spin_unlock_irqrestore(&rcd.exp_lock, flags);

  std::vector<Report> r = ReportsOf(Rule::kIrqSafeToUnsafe);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_EQ(r[0].lock_class, "&dd->uctxt_lock");
  EXPECT_THAT(r[0].message, HasSubstr("dependency: &rcd->exp_lock -> &dd->uctxt_lock"));
  EXPECT_THAT(r[0].message, HasSubstr("&rcd->exp_lock {IN-HARDIRQ}"));
  EXPECT_THAT(r[0].message, HasSubstr("&dd->uctxt_lock {HARDIRQ-ON}"));
  EXPECT_EQ(rec_.reports().size(), 1u) << AllReports();
}

TEST_F(IrqTest, SafeToUnsafeIsReportedWhenTheUnsafeUseComesLast) {
  hfi1_ctxtdata rcd;
  hfi1_devdata dd;
  ReceiveInterrupt(&rcd);
  unsigned long flags;
  spin_lock_irqsave(&rcd.exp_lock, flags);  // exp_lock -> sc_lock -> uctxt_lock
  spin_lock(&dd.sc_lock);
  spin_lock(&dd.uctxt_lock);
  spin_unlock(&dd.uctxt_lock);
  spin_unlock(&dd.sc_lock);
  spin_unlock_irqrestore(&rcd.exp_lock, flags);
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
  spin_lock(&dd.uctxt_lock);  // first use with IRQs on
  spin_unlock(&dd.uctxt_lock);
  std::vector<Report> r = ReportsOf(Rule::kIrqSafeToUnsafe);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_THAT(r[0].message,
              HasSubstr("dependency: &rcd->exp_lock -> &dd->sc_lock -> &dd->uctxt_lock"));
  EXPECT_THAT(r[0].message, HasSubstr("&rcd->exp_lock -> &dd->sc_lock, first seen in"));
}

TEST_F(IrqTest, SafeToUnsafeIsReportedWhenTheSafeUseComesLast) {
  hfi1_ctxtdata rcd;
  hfi1_devdata dd;
  unsigned long flags;
  spin_lock_irqsave(&rcd.exp_lock, flags);
  spin_lock(&dd.uctxt_lock);
  spin_unlock(&dd.uctxt_lock);
  spin_unlock_irqrestore(&rcd.exp_lock, flags);
  spin_lock(&dd.uctxt_lock);
  spin_unlock(&dd.uctxt_lock);
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
  ReceiveInterrupt(&rcd);
  std::vector<Report> r = ReportsOf(Rule::kIrqSafeToUnsafe);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_EQ(r[0].lock_class, "&rcd->exp_lock");
  EXPECT_THAT(r[0].stack, HasSubstr("ReceiveInterrupt"));
}

TEST_F(IrqTest, ADeclaredIrqSafeLockTakenWithIrqsOnIsReported) {
  hfi1_ctxtdata rcd;
  lockcheck::DeclareHardirqSafe(&rcd.exp_lock);  // no interrupt is emulated
  unsigned long flags;
  spin_lock_irqsave(&rcd.exp_lock, flags);
  spin_unlock_irqrestore(&rcd.exp_lock, flags);
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
  BuggyPlainLockWithIrqsOn(&rcd);
  std::vector<Report> r = ReportsOf(Rule::kIrqSafety);
  ASSERT_EQ(r.size(), 1u) << AllReports();
  EXPECT_THAT(r[0].message, HasSubstr("(IRQ-safe), first in thread"));
  EXPECT_THAT(r[0].message, HasSubstr("TestBody"));  // where it was declared
  EXPECT_THAT(r[0].stack, HasSubstr("BuggyPlainLockWithIrqsOn"));
}

TEST_F(IrqTest, IrqStateFollowsTheKernelFunctions) {
  hfi1_ctxtdata rcd;
  EXPECT_FALSE(irqs_disabled());
  unsigned long outer, inner;
  local_irq_save(outer);
  EXPECT_TRUE(irqs_disabled());
  local_irq_save(inner);
  local_irq_restore(inner);
  EXPECT_TRUE(irqs_disabled());  // restored to "off", as saved
  local_irq_restore(outer);
  EXPECT_FALSE(irqs_disabled());

  spin_lock_irq(&rcd.exp_lock);
  EXPECT_TRUE(irqs_disabled());
  spin_unlock_irq(&rcd.exp_lock);
  EXPECT_FALSE(irqs_disabled());

  EXPECT_FALSE(lockcheck::in_hardirq());
  {
    HardirqScope irq;
    EXPECT_TRUE(lockcheck::in_hardirq());
    EXPECT_TRUE(irqs_disabled());
  }
  EXPECT_FALSE(lockcheck::in_hardirq());
  EXPECT_FALSE(irqs_disabled());
  std::thread other([] { EXPECT_FALSE(irqs_disabled()); });  // per thread
  local_irq_disable();
  other.join();
  local_irq_enable();
  EXPECT_TRUE(rec_.reports().empty()) << AllReports();
}

}  // namespace
