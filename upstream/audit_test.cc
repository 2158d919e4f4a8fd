// upstream/audit_test.cc: the transition facts CheckInvariants needs
// (rcd->audit: F4's clear history, W4's grants, W5's mischarges) are
// recorded whichever function bodies core runs. In upstream mode
// (--config=upstream) the kernel's text records nothing itself: the audited
// redirections of upstream/functions.txt record them from outside it, and
// without those these counters stay zero. In the other configs the same
// expectations hold for core's own functions.
#include <vector>

#include "core/callers.h"
#include "core/hfi1.h"
#include "core/invariants.h"
#include "core/test_model.h"
#include "core/tid_rdma.h"
#include "gtest/gtest.h"
#include "lockcheck/spinlock.h"

namespace {

using flowcheck::testing::TestModel;

// A copy of the audit, taken under exp_lock.
hfi1_flow_audit Audit(TestModel& m) {
  unsigned long flags;
  spin_lock_irqsave(&m.rcd()->exp_lock, flags);
  hfi1_flow_audit a = m.rcd()->audit;
  spin_unlock_irqrestore(&m.rcd()->exp_lock, flags);
  return a;
}

TEST(UpstreamAudit, EveryReleaseByTheKernelsClearIsRecorded) {
  TestModel m(1);
  ASSERT_EQ(caller_setup_hw_flow(m.qp(0)), 0);
  const int flow = m.priv(0)->flow_state.index;
  const u32 gen = m.flow_generation(flow);
  caller_clear_hw_flow(m.qp(0));  // hfi1_kern_clear_hw_flow -> kern_clear_hw_flow
  hfi1_flow_audit a = Audit(m);
  EXPECT_EQ(a.clear[flow].clears, 1u);
  EXPECT_EQ(a.clear[flow].old_gen, gen);
  EXPECT_EQ(a.clear[flow].new_gen, kern_flow_generation_next(gen));
  EXPECT_EQ(a.clear[flow].new_gen, m.flow_generation(flow));
}

TEST(UpstreamAudit, EveryGrantByTheKernelsSetupIsRecorded) {
  TestModel m(2);
  for (int f = 1; f < RXE_NUM_TID_FLOWS; ++f) ASSERT_GE(caller_reserve_flow(m.rcd(), f), 0);
  ASSERT_EQ(caller_setup_hw_flow(m.qp(0)), 0);       // flow 0, flow_queue empty
  ASSERT_EQ(caller_setup_hw_flow(m.qp(1)), -EAGAIN);  // queued
  caller_clear_hw_flow(m.qp(0));                      // flow 0 free again
  ASSERT_EQ(caller_setup_hw_flow(m.qp(1)), 0);       // granted as the head
  hfi1_flow_audit a = Audit(m);
  EXPECT_EQ(a.grants, 2u);
  EXPECT_EQ(a.out_of_order_grants, 0u);
  m.wq().RunAll();  // the wakeup the clear queued for qp 1
  EXPECT_TRUE(m.Check(0xFFFFFFFEUL).empty()) << flowcheck::FormatViolations(m.Check(0xFFFFFFFEUL));
}

TEST(UpstreamAudit, RemovalsChargedToTheOtherQueueAreRecorded) {
  TestModel m(2);
  caller_rarr_wait(m.qp(0));
  caller_flush_wait(m.qp(0));        // _tid_rdma_flush_wait(flow_queue) removes it
  caller_rarr_wait(m.qp(1));
  ASSERT_EQ(caller_setup_hw_flow(m.qp(1)), 0);  // dequeue_tid_waiter(flow_queue)
  hfi1_flow_audit a = Audit(m);
  EXPECT_EQ(a.mischarged_removals, 2u);
  EXPECT_EQ(a.flow_queue_drift, -2);
  EXPECT_EQ(a.rarr_queue_drift, 2);
  EXPECT_FALSE(flowcheck::HasSeverity(m.Check(), flowcheck::Severity::kViolation));
}

TEST(UpstreamAudit, RemovalsFromTheirOwnQueueAreNotMischarges) {
  TestModel m(1);
  caller_rarr_wait(m.qp(0));
  caller_rarr_grant(m.qp(0));        // dequeue_tid_waiter(rarr_queue), the trampoline
  for (int f = 0; f < RXE_NUM_TID_FLOWS; ++f) ASSERT_GE(caller_reserve_flow(m.rcd(), f), 0);
  ASSERT_EQ(caller_setup_hw_flow(m.qp(0)), -EAGAIN);
  caller_flush_wait(m.qp(0));        // removed from flow_queue, charged to it
  hfi1_flow_audit a = Audit(m);
  EXPECT_EQ(a.mischarged_removals, 0u);
  EXPECT_EQ(a.flow_queue_drift, 0);
  EXPECT_EQ(a.rarr_queue_drift, 0);
}

}  // namespace
