// The TID wait queues (docs/kernel.md, "Wait queues"): FIFO order, the wakeup hand-off
// chain, the reference counts, flush, and the queue counters.
#include <vector>

#include "core/callers.h"
#include "core/test_model.h"
#include "core/tid_rdma.h"
#include "gmock/gmock-matchers.h"
#include "gmock/gmock-more-matchers.h"
#include "gtest/gtest.h"

namespace {

using flowcheck::testing::TestModel;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// QPs 0..31 own flows 0..31; QPs from `first_waiter` on want a flow and are
// queued, in index order.
void FillAndQueue(TestModel& m, int first_waiter, int waiters) {
  for (int i = 0; i < RXE_NUM_TID_FLOWS; ++i) ASSERT_EQ(caller_setup_hw_flow(m.qp(i)), 0);
  for (int i = first_waiter; i < first_waiter + waiters; ++i) {
    caller_set_wants_flow(m.qp(i), true);
    ASSERT_EQ(caller_setup_hw_flow(m.qp(i)), -EAGAIN);
  }
}

// The pending work items as "<qpn>:trigger" / "<qpn>:send".
std::vector<std::string> PendingWork(TestModel& m) {
  std::vector<std::string> out;
  for (const work_struct* w : m.wq().Pending()) {
    for (rvt_qp* qp : m.qps()) {
      if (w == &qp->priv->tid_rdma.trigger_work) out.push_back(std::to_string(qp->qp_num) + ":trigger");
      if (w == &qp->priv->s_iowait.iowork) out.push_back(std::to_string(qp->qp_num) + ":send");
    }
  }
  return out;
}

TEST(Fifo, WaitersQueueInArrivalOrderWithIncreasingTickets) {
  TestModel m(35);
  FillAndQueue(m, 32, 3);
  EXPECT_THAT(m.flow_queue_qpns(), ElementsAre(33u, 34u, 35u));
  for (int i = 32; i < 35; ++i) {
    EXPECT_TRUE(m.waiting(i));
    EXPECT_EQ(m.priv(i)->tid_enqueue, static_cast<u32>(i - 31));
    EXPECT_EQ(m.position(i), static_cast<u32>(i - 31));
    EXPECT_EQ(m.refs(i), 2);  // the table's + the queue's
  }
  EXPECT_EQ(m.dd()->verbs_dev.n_tidwait, 3u);
  EXPECT_THAT(m.Check(), IsEmpty());
}

TEST(Fifo, NewcomerQueuesBehindWaitersEvenWhenAFlowIsFree) {
  TestModel m(36);
  FillAndQueue(m, 32, 2);
  caller_clear_hw_flow(m.qp(0));  // flow 0 free; head (qpn 33) woken, not yet run
  ASSERT_EQ(m.flow_mask(), 0xFFFFFFFEUL);
  EXPECT_EQ(caller_setup_hw_flow(m.qp(35)), -EAGAIN);
  EXPECT_EQ(m.flow_mask(), 0xFFFFFFFEUL);  // still free: kept for the head
  EXPECT_THAT(m.flow_queue_qpns(), ElementsAre(33u, 34u, 36u));
  EXPECT_THAT(m.Check(), IsEmpty());
}

TEST(Handoff, EachGrantWakesTheNextHeadInTurn) {
  TestModel m(35);
  FillAndQueue(m, 32, 3);
  caller_clear_hw_flow(m.qp(0));
  EXPECT_THAT(PendingWork(m), ElementsAre("33:trigger"));
  EXPECT_EQ(m.refs(32), 3);  // table + queue + pending trigger_work

  // The head runs its send engine, gets flow 0, leaves the queue and wakes
  // the next head, whose retry fails (no flow): it stays head, flagged.
  ASSERT_TRUE(m.wq().RunOne());
  EXPECT_EQ(m.priv(32)->flow_state.index, 0);
  EXPECT_THAT(m.flow_queue_qpns(), ElementsAre(34u, 35u));
  EXPECT_THAT(PendingWork(m), ElementsAre("34:trigger"));
  ASSERT_TRUE(m.wq().RunOne());
  EXPECT_EQ(m.priv(33)->flow_state.index, RXE_NUM_TID_FLOWS);
  EXPECT_THAT(m.flow_queue_qpns(), ElementsAre(34u, 35u));
  EXPECT_TRUE(m.waiting(33));
  EXPECT_EQ(m.flow_counters().enqueue, 3u);  // re-queue was a no-op
  EXPECT_THAT(PendingWork(m), IsEmpty());

  // Next release: the same head gets it, then qpn 35 after another.
  caller_clear_hw_flow(m.qp(5));
  m.wq().RunAll();
  EXPECT_EQ(m.priv(33)->flow_state.index, 5);
  caller_clear_hw_flow(m.qp(6));
  m.wq().RunAll();
  EXPECT_EQ(m.priv(34)->flow_state.index, 6);
  EXPECT_THAT(m.flow_queue_qpns(), IsEmpty());
  for (int i = 32; i < 35; ++i) EXPECT_EQ(m.priv(i)->model_req.flows_granted, 1u);
  EXPECT_THAT(m.Check(), IsEmpty());
}

TEST(Handoff, HeadWhoseRequestWentAwayBlocksEveryoneBehindIt) {
  // The hand-off's liveness gap (docs/kernel.md, "The wakeup chain"): the woken head does not retry, keeps the
  // head slot, and the QP behind it waits although a flow is free.
  TestModel m(34);
  FillAndQueue(m, 32, 2);
  caller_set_wants_flow(m.qp(32), false);
  caller_clear_hw_flow(m.qp(0));
  m.wq().RunAll();
  EXPECT_EQ(m.priv(32)->model_req.send_engine_runs, 1u);
  EXPECT_THAT(m.flow_queue_qpns(), ElementsAre(33u, 34u));
  EXPECT_EQ(m.flow_mask(), 0xFFFFFFFEUL);
  EXPECT_EQ(m.priv(33)->flow_state.index, RXE_NUM_TID_FLOWS);
  // Only a flush of the stuck head (QP error/reset) lets the queue move,
  // and flush wakes nobody: the next release does.
  caller_flush_wait(m.qp(32));
  EXPECT_THAT(PendingWork(m), IsEmpty());
  caller_clear_hw_flow(m.qp(1));
  m.wq().RunAll();
  EXPECT_EQ(m.priv(33)->flow_state.index, 0);
  EXPECT_THAT(m.Check(), IsEmpty());
}

TEST(Wakeup, SecondWakeupWhileTriggerIsPendingDropsItsReference) {
  TestModel m(35);
  FillAndQueue(m, 32, 1);
  caller_clear_hw_flow(m.qp(0));
  caller_clear_hw_flow(m.qp(1));  // wakes the same head again
  EXPECT_THAT(PendingWork(m), ElementsAre("33:trigger"));
  EXPECT_EQ(m.refs(32), 3);
  m.wq().RunAll();
  EXPECT_EQ(m.refs(32), 1);
  EXPECT_THAT(m.Check(), IsEmpty());
}

TEST(Wakeup, TriggerOfAnUnflaggedQpDoesNotRunTheSendEngine) {
  TestModel m(35);
  FillAndQueue(m, 32, 1);
  caller_clear_hw_flow(m.qp(0));
  caller_flush_wait(m.qp(32));  // unflagged and dequeued before the work runs
  m.wq().RunAll();
  EXPECT_EQ(m.priv(32)->model_req.send_engine_runs, 0u);
  EXPECT_EQ(m.refs(32), 1);
  EXPECT_THAT(m.Check(), IsEmpty());
}

TEST(Wakeup, ReleaseByTheHeadItselfTriggersItDirectly) {
  // hfi1_kern_exp_rcv_clear's fqp == qp branch: the QP waiting at the head of
  // rarr_queue frees TIDs itself; it is woken through its send work, with no
  // trigger_work and no reference moved.
  TestModel m(2);
  caller_rarr_wait(m.qp(0));
  caller_rarr_wait(m.qp(1));
  caller_rarr_release(m.qp(0));
  EXPECT_THAT(PendingWork(m), ElementsAre("1:send"));
  EXPECT_EQ(m.refs(0), 2);
  EXPECT_TRUE(m.waiting(0));  // __trigger_tid_waiter keeps the flag
  EXPECT_THAT(m.rarr_queue_qpns(), ElementsAre(1u, 2u));
  caller_rarr_release(m.qp(1));  // not the head: the head gets trigger_work
  EXPECT_THAT(PendingWork(m), ElementsAre("1:send", "1:trigger"));
  m.wq().RunAll();
  EXPECT_EQ(m.refs(0), 2);
  EXPECT_THAT(m.Check(), IsEmpty());
}

TEST(Wakeup, GrantOnRarrQueueWakesTheNextRarrHead) {
  TestModel m(3);
  for (int i = 0; i < 3; ++i) caller_rarr_wait(m.qp(i));
  caller_rarr_grant(m.qp(0));
  EXPECT_THAT(m.rarr_queue_qpns(), ElementsAre(2u, 3u));
  EXPECT_THAT(PendingWork(m), ElementsAre("2:trigger"));
  EXPECT_FALSE(m.waiting(0));
  EXPECT_THAT(m.Check(), IsEmpty());
}

// Calls kernel_tid_waiters(rcd, flow_queue, qp) with both locks.
bool Waiters(TestModel& m, int i) {
  rvt_qp* qp = m.qp(i);
  hfi1_ctxtdata* rcd = m.rcd();
  unsigned long f1, f2;
  spin_lock_irqsave(&qp->s_lock, f1);
  spin_lock_irqsave(&rcd->exp_lock, f2);
  bool r = kernel_tid_waiters(rcd, &rcd->flow_queue, qp);
  spin_unlock_irqrestore(&rcd->exp_lock, f2);
  spin_unlock_irqrestore(&qp->s_lock, f1);
  return r;
}

TEST(KernelTidWaiters, OnlyAFlaggedHeadOrAnEmptyQueueMayAllocate) {
  TestModel m(35);
  EXPECT_FALSE(Waiters(m, 34));  // empty queue
  FillAndQueue(m, 32, 2);
  EXPECT_FALSE(Waiters(m, 32));  // the flagged head
  EXPECT_TRUE(Waiters(m, 33));   // behind it
  EXPECT_TRUE(Waiters(m, 34));   // not queued
  // QUIRK: the head without the flag must wait behind itself.
  unsigned long flags;
  spin_lock_irqsave(&m.qp(32)->s_lock, flags);
  m.qp(32)->s_flags &= ~HFI1_S_WAIT_TID_SPACE;
  spin_unlock_irqrestore(&m.qp(32)->s_lock, flags);
  EXPECT_TRUE(Waiters(m, 32));
  EXPECT_EQ(m.refs(32), 2);  // the temporary head reference was dropped
}

TEST(QueueQpForTidWait, QpOnEitherListIsNotQueuedAgain) {
  TestModel m(1);
  caller_rarr_wait(m.qp(0));
  caller_rarr_wait(m.qp(0));
  EXPECT_EQ(m.rarr_counters().enqueue, 1u);
  caller_reserve_flow(m.rcd(), -1);
  for (int i = 1; i < RXE_NUM_TID_FLOWS; ++i) caller_reserve_flow(m.rcd(), -1);
  EXPECT_EQ(caller_setup_hw_flow(m.qp(0)), -EAGAIN);  // no flow; already on rarr
  EXPECT_THAT(m.flow_queue_qpns(), IsEmpty());
  EXPECT_EQ(m.flow_counters().enqueue, 0u);
  EXPECT_EQ(m.refs(0), 2);
  EXPECT_THAT(m.Check(0xFFFFFFFFUL), IsEmpty());
}

TEST(TriggerTidWaiter, LeavesTheFlagAndTheQueueAlone) {
  TestModel m(1);
  caller_rarr_wait(m.qp(0));
  unsigned long flags;
  spin_lock_irqsave(&m.qp(0)->s_lock, flags);
  __trigger_tid_waiter(m.qp(0));
  spin_unlock_irqrestore(&m.qp(0)->s_lock, flags);
  EXPECT_TRUE(m.waiting(0));
  EXPECT_THAT(m.rarr_queue_qpns(), ElementsAre(1u));
  EXPECT_THAT(PendingWork(m), ElementsAre("1:send"));
}

TEST(Flush, RemovesAFlowWaiterAndDropsTheQueuesReference) {
  TestModel m(34);
  FillAndQueue(m, 32, 2);
  caller_flush_wait(m.qp(32));
  EXPECT_THAT(m.flow_queue_qpns(), ElementsAre(34u));
  EXPECT_FALSE(m.waiting(32));
  EXPECT_EQ(m.refs(32), 1);
  EXPECT_EQ(m.flow_counters().dequeue, 1u);
  EXPECT_EQ(m.position(33), 1u);  // now first
  EXPECT_THAT(m.Check(), IsEmpty());
}

TEST(Flush, RemovesARarrWaiterTooButChargesFlowQueue) {
  // Flush works from either queue; from rarr_queue it is [R-1] (see
  // quirks_test.cc for what that does to the counters).
  TestModel m(2);
  caller_rarr_wait(m.qp(0));
  caller_rarr_wait(m.qp(1));
  caller_flush_wait(m.qp(1));
  EXPECT_THAT(m.rarr_queue_qpns(), ElementsAre(1u));
  EXPECT_FALSE(m.waiting(1));
  EXPECT_EQ(m.refs(1), 1);
  EXPECT_EQ(m.flow_counters().dequeue, 1u);
  EXPECT_EQ(m.rarr_counters().dequeue, 0u);
}

TEST(Flush, OfAQpOnNoQueueOnlyClearsTheFlag) {
  TestModel m(1);
  unsigned long flags;
  spin_lock_irqsave(&m.qp(0)->s_lock, flags);
  m.qp(0)->s_flags |= HFI1_S_WAIT_TID_SPACE;
  spin_unlock_irqrestore(&m.qp(0)->s_lock, flags);
  caller_flush_wait(m.qp(0));
  EXPECT_FALSE(m.waiting(0));
  EXPECT_EQ(m.flow_counters().dequeue, 0u);
  EXPECT_EQ(m.refs(0), 1);
}

TEST(StopSendQueue, CancelledTriggerWorkGivesBackItsReference) {
  TestModel m(35);
  FillAndQueue(m, 32, 1);
  caller_clear_hw_flow(m.qp(0));
  EXPECT_EQ(m.refs(32), 3);
  stop_send_queue(m.qp(32));
  EXPECT_THAT(PendingWork(m), IsEmpty());
  EXPECT_EQ(m.refs(32), 2);
}

TEST(Refs, EveryReferenceComesBackAfterAWorkload) {
  TestModel m(36);
  FillAndQueue(m, 32, 4);
  caller_rarr_wait(m.qp(0));
  caller_rarr_wait(m.qp(1));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 36; i += 3) caller_clear_hw_flow(m.qp(i));
    m.wq().RunAll();
    caller_rarr_grant(m.qp(round % 2));
    m.wq().RunAll();
  }
  EXPECT_THAT(m.Check(), IsEmpty());
  for (int i = 0; i < 36; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(hfi1_model_teardown_qp(m.qp(i)), 0);
  }
}

TEST(PositionInQueue, TicketsWrapAndOrderSurvives) {
  TestModel m(35);
  unsigned long flags;
  spin_lock_irqsave(&m.rcd()->exp_lock, flags);
  m.rcd()->flow_queue.enqueue = 0xFFFFFFFE;
  m.rcd()->flow_queue.dequeue = 0xFFFFFFFE;
  spin_unlock_irqrestore(&m.rcd()->exp_lock, flags);
  FillAndQueue(m, 32, 3);
  EXPECT_EQ(m.priv(32)->tid_enqueue, 0xFFFFFFFFu);
  EXPECT_EQ(m.priv(33)->tid_enqueue, 0u);
  EXPECT_EQ(m.priv(34)->tid_enqueue, 1u);
  EXPECT_EQ(m.position(32), 1u);
  EXPECT_EQ(m.position(33), 2u);
  EXPECT_EQ(m.position(34), 3u);
  EXPECT_THAT(m.Check(), IsEmpty());  // W6 modulo 2^32, W5 too
}

}  // namespace
