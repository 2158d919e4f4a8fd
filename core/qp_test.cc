// core/qp_test.cc: the send side around the flow layer (core/qp.h) as the
// kernel has it: hfi1_schedule_send and hfi1_do_send honour hfi1_send_ok(),
// and _hfi1_schedule_send queues nothing while the device shuts down. So a
// wakeup of a QP that is busy or waiting for I/O does not run its engine.
#include "core/qp.h"

#include <vector>

#include "core/callers.h"
#include "core/test_model.h"
#include "core/tid_rdma.h"
#include "gtest/gtest.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/schedule.h"

namespace {

using flowcheck::testing::TestModel;

void SetFlags(rvt_qp* qp, u32 set, u32 clear = 0) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  qp->s_flags = (qp->s_flags & ~clear) | set;
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

bool ScheduleSend(rvt_qp* qp) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  const bool ret = hfi1_schedule_send(qp);
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return ret;
}

bool SendOk(rvt_qp* qp) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  const bool ret = hfi1_send_ok(qp);
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return ret;
}

TEST(HfiSendOk, FollowsTheKernelsFormula) {
  TestModel m(1);
  rvt_qp* qp = m.qp(0);
  EXPECT_TRUE(SendOk(qp));
  SetFlags(qp, HFI1_S_WAIT_TID_SPACE);  // the flow layer's own wait: no bar to sending
  EXPECT_TRUE(SendOk(qp));
  SetFlags(qp, RVT_S_BUSY);
  EXPECT_FALSE(SendOk(qp));
  SetFlags(qp, RVT_S_WAIT_KMEM, RVT_S_BUSY);  // an I/O wait
  EXPECT_FALSE(SendOk(qp));
  SetFlags(qp, HFI1_S_WAIT_PIO_DRAIN, RVT_S_WAIT_KMEM);
  EXPECT_FALSE(SendOk(qp));
  SetFlags(qp, RVT_S_WAIT_ACK, HFI1_S_WAIT_PIO_DRAIN);  // a send wait...
  EXPECT_FALSE(SendOk(qp));
  SetFlags(qp, RVT_S_RESP_PENDING);  // ... does not stop a pending response
  EXPECT_TRUE(SendOk(qp));
}

TEST(HfiScheduleSend, ABusyQpIsNotScheduled) {
  TestModel m(1);
  rvt_qp* qp = m.qp(0);
  SetFlags(qp, RVT_S_BUSY);
  EXPECT_FALSE(ScheduleSend(qp));
  EXPECT_FALSE(work_pending(&qp->priv->s_iowait.iowork));
  SetFlags(qp, 0, RVT_S_BUSY);
  EXPECT_TRUE(ScheduleSend(qp));
  EXPECT_TRUE(work_pending(&qp->priv->s_iowait.iowork));
}

TEST(HfiScheduleSend, NothingIsQueuedWhileTheDeviceShutsDown) {
  TestModel m(1);
  rvt_qp* qp = m.qp(0);
  m.dd()->flags |= HFI1_SHUTDOWN;
  EXPECT_TRUE(ScheduleSend(qp));  // as the kernel: "scheduled", nothing queued
  EXPECT_FALSE(work_pending(&qp->priv->s_iowait.iowork));
  m.dd()->flags &= ~HFI1_SHUTDOWN;
}

TEST(HfiDoSend, ReturnsEarlyWhenTheQpMayNotSend) {
  TestModel m(1);
  rvt_qp* qp = m.qp(0);
  SetFlags(qp, RVT_S_WAIT_TX);
  hfi1_do_send(qp, true);
  EXPECT_EQ(qp->priv->model_req.send_engine_runs, 0u);
  SetFlags(qp, 0, RVT_S_WAIT_TX);
  hfi1_do_send(qp, true);
  EXPECT_EQ(qp->priv->model_req.send_engine_runs, 1u);
}

// The engine runs with RVT_S_BUSY set, as the kernel's request builders do,
// and it is clear again afterwards.
void ExpectBusy(rvt_qp* qp, void* seen) {
  lockdep_assert_held(&qp->s_lock);
  *static_cast<u32*>(seen) = qp->s_flags;
}

TEST(HfiDoSend, TheEngineRunsBusy) {
  TestModel m(1);
  rvt_qp* qp = m.qp(0);
  u32 seen = 0;
  qp->priv->model_req.send_engine = &ExpectBusy;
  qp->priv->model_req.send_engine_arg = &seen;
  hfi1_do_send(qp, true);
  EXPECT_NE(seen & RVT_S_BUSY, 0u);
  EXPECT_EQ(m.s_flags(0) & RVT_S_BUSY, 0u);
}

// Teardown in rdmavt's _rvt_reset_qp order: flush under r_lock and s_lock,
// then (locks dropped) stop the send queue and drop the table reference, then
// under r_lock and s_lock again clear the QP's flow (notify_qp_reset). Seen
// through the acquisitions of the QP's two locks and the context's exp_lock.
struct Acquisitions {
  const void* r_lock;
  const void* s_lock;
  const void* exp_lock;
  std::vector<char> seen;  // 'r', 's', 'e' in acquisition order
};

void Record(lockcheck::SchedulePoint point, const void* lock, void* arg) {
  auto* a = static_cast<Acquisitions*>(arg);
  if (point != lockcheck::SchedulePoint::kBeforeAcquire) return;
  if (lock == a->r_lock) a->seen.push_back('r');
  if (lock == a->s_lock) a->seen.push_back('s');
  if (lock == a->exp_lock) a->seen.push_back('e');
}

TEST(HfiModelTeardown, FollowsRvtResetQpOrder) {
  TestModel m(2);
  rvt_qp* qp = m.qp(0);
  ASSERT_EQ(caller_setup_hw_flow(qp), 0);
  SetFlags(qp, RVT_S_TIMER | RVT_S_WAIT_ACK);
  Acquisitions a{&qp->r_lock, &qp->s_lock, &m.rcd()->exp_lock, {}};
  lockcheck::SetScheduleHook(&Record, &a);
  const int left = hfi1_model_teardown_qp(qp);
  lockcheck::SetScheduleHook(nullptr, nullptr);
  EXPECT_EQ(left, 0);
  // flush: _tid_rdma_flush_wait takes exp_lock once per queue; the clear once.
  EXPECT_EQ(a.seen, (std::vector<char>{'r', 's', 'e', 'e', 'r', 's', 'e'}));
  EXPECT_EQ(m.flow_mask(), 0ul);
  EXPECT_EQ(m.s_flags(0) & (RVT_S_TIMER | RVT_S_WAIT_ACK), 0u);
}

}  // namespace
