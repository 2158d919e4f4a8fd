// core/callers_test.cc: the callers' under-lock observer (callers.h). Each
// caller reports its call once, with what it called and its result, while it
// holds exp_lock (and the QP's s_lock), and the observer sees the state the
// call just left, before anyone else can change it.
#include "core/callers.h"

#include <cerrno>
#include <string>
#include <vector>

#include "core/bitops.h"
#include "core/exp_rcv.h"
#include "core/invariants.h"
#include "core/test_model.h"
#include "core/tid_rdma.h"
#include "gmock/gmock-matchers.h"
#include "gmock/gmock-more-matchers.h"
#include "gtest/gtest.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/report.h"

namespace {

using flowcheck::testing::TestModel;
using ::testing::ElementsAre;

// What the observer saw at one call: the event and the state under the lock.
struct Seen {
  CallerOp op;
  rvt_qp* qp;
  long arg;
  int ret;
  unsigned long flow_mask;
  u8 flow_index;       // qp's flow_state.index (qp calls only)
  bool on_a_queue;     // qp's tid_wait is linked (qp calls only)
  bool wants_flow;     // qp's request layer (qp calls only)
};

// Records every event and asserts (through lockcheck) that the locks the
// contract promises are held by the calling thread.
class Recorder : public CallerObserver {
 public:
  void UnderLock(hfi1_ctxtdata* rcd, const CallerEvent& e) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd->exp_lock) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    lockdep_assert_held(&rcd->exp_lock);
    Seen s{e.op, e.qp, e.arg, e.ret, rcd->flow_mask, 0, false, false};
    if (e.qp != nullptr) {
      lockdep_assert_held(&e.qp->s_lock);
      s.flow_index = e.qp->priv->flow_state.index;
      s.on_a_queue = !list_empty(&e.qp->priv->tid_wait);
      s.wants_flow = e.qp->priv->model_req.wants_flow;
    }
    seen.push_back(s);
  }
  std::vector<Seen> seen;
};

// The invariants hold; else the violations, by id, in the failure message.
#define ASSERT_NO_VIOLATIONS(check)                                       \
  do {                                                                    \
    const std::vector<flowcheck::InvariantViolation> v_ = (check);                   \
    ASSERT_TRUE(v_.empty()) << flowcheck::FormatViolations(v_);           \
  } while (0)

std::vector<CallerOp> Ops(const std::vector<Seen>& v) {
  std::vector<CallerOp> ops;
  for (const Seen& s : v) ops.push_back(s.op);
  return ops;
}

class CallersTest : public ::testing::Test {
 protected:
  CallersTest() : model_(3) {}
  // Any lockdep_assert_held that fails in the observer is recorded here.
  lockcheck::RecordingHandler lock_reports_;
  TestModel model_;
  Recorder rec_;
};

TEST_F(CallersTest, NoObserverIsTheDefault) {
  // The same calls without an observer: nothing to observe, same results.
  EXPECT_EQ(caller_setup_hw_flow(model_.qp(0)), 0);
  caller_clear_hw_flow(model_.qp(0));
  EXPECT_EQ(caller_reserve_flow(model_.rcd(), 4), 4);
  caller_release_flow(model_.rcd(), 4);
  EXPECT_EQ(model_.flow_mask(), 0u);
}

TEST_F(CallersTest, SetupAndClearAreSeenWithTheirResultUnderBothLocks) {
  ASSERT_EQ(caller_setup_hw_flow(model_.qp(0), &rec_), 0);
  caller_clear_hw_flow(model_.qp(0), &rec_);
  ASSERT_THAT(Ops(rec_.seen), ElementsAre(CallerOp::kSetupHwFlow, CallerOp::kClearHwFlow));
  const Seen& setup = rec_.seen[0];
  EXPECT_EQ(setup.qp, model_.qp(0));
  EXPECT_EQ(setup.ret, 0);
  EXPECT_LT(setup.flow_index, RXE_NUM_TID_FLOWS);  // it owns the flow ...
  EXPECT_EQ(setup.flow_mask, 1UL << setup.flow_index);  // ... and its bit is set
  const Seen& clear = rec_.seen[1];
  EXPECT_EQ(clear.flow_index, RXE_NUM_TID_FLOWS);
  EXPECT_EQ(clear.flow_mask, 0u);
  EXPECT_TRUE(lock_reports_.reports().empty()) << lock_reports_.reports()[0].ToString();
}

TEST_F(CallersTest, AnEagainSetupIsSeenQueued) {
  for (int i = 0; i < RXE_NUM_TID_FLOWS; ++i) ASSERT_EQ(caller_reserve_flow(model_.rcd(), i), i);
  ASSERT_EQ(caller_setup_hw_flow(model_.qp(1), &rec_), -EAGAIN);
  ASSERT_THAT(Ops(rec_.seen), ElementsAre(CallerOp::kSetupHwFlow));
  EXPECT_EQ(rec_.seen[0].ret, -EAGAIN);
  EXPECT_TRUE(rec_.seen[0].on_a_queue);
  EXPECT_EQ(model_.flow_queue_qpns(), std::vector<u32>{2});
  caller_flush_wait(model_.qp(1), &rec_);
  ASSERT_EQ(rec_.seen.size(), 2u);
  EXPECT_EQ(rec_.seen[1].op, CallerOp::kFlushWait);
  EXPECT_FALSE(rec_.seen[1].on_a_queue);
  EXPECT_TRUE(lock_reports_.reports().empty());
}

TEST_F(CallersTest, GiveUpFlushesOnlyAQpWithoutAFlow) {
  for (int i = 0; i < RXE_NUM_TID_FLOWS; ++i) ASSERT_EQ(caller_reserve_flow(model_.rcd(), i), i);
  caller_set_wants_flow(model_.qp(0), true);
  ASSERT_EQ(caller_setup_hw_flow(model_.qp(0)), -EAGAIN);
  EXPECT_TRUE(caller_give_up_flow_wait(model_.qp(0), &rec_));
  ASSERT_THAT(Ops(rec_.seen), ElementsAre(CallerOp::kGiveUpFlowWait));
  EXPECT_EQ(rec_.seen[0].ret, 1);
  EXPECT_FALSE(rec_.seen[0].on_a_queue);
  EXPECT_FALSE(rec_.seen[0].wants_flow);

  // A QP that already owns a flow keeps it and its request.
  caller_release_flow(model_.rcd(), 9);
  caller_set_wants_flow(model_.qp(1), true);
  ASSERT_EQ(caller_setup_hw_flow(model_.qp(1)), 0);
  caller_set_wants_flow(model_.qp(1), true);
  EXPECT_FALSE(caller_give_up_flow_wait(model_.qp(1), &rec_));
  ASSERT_EQ(rec_.seen.size(), 2u);
  EXPECT_EQ(rec_.seen[1].ret, 0);
  EXPECT_EQ(rec_.seen[1].flow_index, 9);
  EXPECT_TRUE(rec_.seen[1].wants_flow);
  EXPECT_TRUE(lock_reports_.reports().empty());
}

TEST_F(CallersTest, RarrCallsAreSeenInsideTheirCriticalSection) {
  ASSERT_EQ(caller_setup_hw_flow(model_.qp(0)), 0);
  caller_rarr_wait(model_.qp(0), &rec_);
  caller_rarr_grant(model_.qp(0), &rec_);
  caller_rarr_release(model_.qp(0), &rec_);
  ASSERT_THAT(Ops(rec_.seen), ElementsAre(CallerOp::kRarrWait, CallerOp::kRarrGrant,
                                          CallerOp::kRarrRelease));
  EXPECT_TRUE(rec_.seen[0].on_a_queue);   // queued on rarr_queue
  EXPECT_FALSE(rec_.seen[1].on_a_queue);  // dequeued
  EXPECT_FALSE(rec_.seen[2].on_a_queue);
  model_.wq().RunAll();
  EXPECT_TRUE(lock_reports_.reports().empty());
}

// hfi1_kern_exp_rcv_setup's FIFO gate (kernel_tid_waiters on rarr_queue)
// runs inside the grant's exp_lock section: a QP behind another RcvArray
// waiter is queued, not granted, however the caller got there.
TEST_F(CallersTest, ARarrGrantBehindAnotherWaiterQueuesInstead) {
  ASSERT_EQ(caller_setup_hw_flow(model_.qp(0)), 0);
  ASSERT_EQ(caller_setup_hw_flow(model_.qp(1)), 0);
  caller_rarr_wait(model_.qp(0));
  EXPECT_EQ(caller_rarr_grant(model_.qp(1), &rec_), -EAGAIN);
  ASSERT_THAT(Ops(rec_.seen), ElementsAre(CallerOp::kRarrGrant));
  EXPECT_EQ(rec_.seen[0].ret, -EAGAIN);
  EXPECT_TRUE(rec_.seen[0].on_a_queue);
  EXPECT_THAT(model_.rarr_queue_qpns(), ElementsAre(1u, 2u));  // FIFO kept
  EXPECT_TRUE(model_.waiting(1));
  // A second try while still behind: nothing changes (already on the list).
  EXPECT_EQ(caller_rarr_grant(model_.qp(1)), -EAGAIN);
  EXPECT_THAT(model_.rarr_queue_qpns(), ElementsAre(1u, 2u));
  // The head (flagged) is granted and wakes the next, which then gets its turn.
  EXPECT_EQ(caller_rarr_grant(model_.qp(0)), 0);
  EXPECT_THAT(model_.rarr_queue_qpns(), ElementsAre(2u));
  EXPECT_EQ(caller_rarr_grant(model_.qp(1)), 0);
  EXPECT_TRUE(model_.rarr_queue_qpns().empty());
  model_.wq().RunAll();
  EXPECT_TRUE(lock_reports_.reports().empty());
}

TEST_F(CallersTest, ResyncAndItsAckAreSeenWithThePsnAndTheVerdict) {
  // A QP without a flow accepts any generation (tid_rdma.h).
  const u32 psn = ((5u << HFI1_KDETH_BTH_SEQ_SHIFT) - 1) & PSN_MASK;
  EXPECT_TRUE(caller_resync(model_.qp(2), psn, &rec_));
  EXPECT_FALSE(caller_resync(model_.qp(2), psn, &rec_));  // resync already pending
  caller_clear_resync(model_.qp(2), &rec_);
  ASSERT_THAT(Ops(rec_.seen),
              ElementsAre(CallerOp::kResync, CallerOp::kResync, CallerOp::kClearResync));
  EXPECT_EQ(rec_.seen[0].arg, static_cast<long>(psn));
  EXPECT_EQ(rec_.seen[0].ret, 1);
  EXPECT_EQ(rec_.seen[1].ret, 0);
  EXPECT_EQ(rec_.seen[2].qp, model_.qp(2));
  EXPECT_TRUE(lock_reports_.reports().empty());
}

TEST_F(CallersTest, BareReserveAndReleaseAreSeenWithTheMaskTheyLeft) {
  ASSERT_EQ(caller_reserve_flow(model_.rcd(), 7, &rec_), 7);
  caller_release_flow(model_.rcd(), 7, &rec_);
  ASSERT_THAT(Ops(rec_.seen), ElementsAre(CallerOp::kReserveFlow, CallerOp::kReleaseFlow));
  EXPECT_EQ(rec_.seen[0].qp, nullptr);
  EXPECT_EQ(rec_.seen[0].arg, 7);
  EXPECT_EQ(rec_.seen[0].ret, 7);
  EXPECT_EQ(rec_.seen[0].flow_mask, 1UL << 7);
  EXPECT_EQ(rec_.seen[1].arg, 7);
  EXPECT_EQ(rec_.seen[1].flow_mask, 0u);
  EXPECT_TRUE(lock_reports_.reports().empty());
}

// The READ requester's segments (the kernel's hfi1_build_tid_rdma_read_req):
// each takes TIDs and advances the QP's PSN by its packets; when the next
// one would pass the flow's 2047 PSNs the request is at a sync point: with
// responses due nothing is sent (-EBUSY, F5 holds), and the last response
// due frees the flow; the next segment sets up a new generation.
TEST_F(CallersTest, SegmentsAdvanceThePsnAndTheBudgetForcesANewGeneration)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  rvt_qp* qp = model_.qp(0);
  qp->priv->model_read_segs = 40;  // a READ long enough to reach a sync point
  const u8 pages[16] = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};  // 64 packets
  ASSERT_EQ(caller_read_req_segment(qp, pages, 16, &rec_), 0);
  EXPECT_EQ(qp->priv->flow_state.psn, 64u);
  const u32 generation = qp->priv->flow_state.generation;
  ASSERT_EQ(caller_read_resp_segment(qp, &rec_), 0);
  EXPECT_EQ(caller_read_resp_segment(qp), -EINVAL);  // none pending
  // 30 more segments, one left pending: psn 1984; a 32nd would reach 2048.
  for (int i = 1; i < 30; ++i) {
    ASSERT_EQ(caller_read_req_segment(qp, pages, 16), 0) << i;
    ASSERT_EQ(caller_read_resp_segment(qp), 0) << i;
  }
  ASSERT_EQ(caller_read_req_segment(qp, pages, 16), 0);  // pending: 1
  EXPECT_EQ(qp->priv->flow_state.psn, 31u * 64);
  EXPECT_EQ(caller_read_req_segment(qp, pages, 16), -EBUSY);
  EXPECT_EQ(qp->priv->model_swqe->tid_req.state, TID_REQUEST_SYNC);
  EXPECT_EQ(qp->priv->flow_state.generation, generation);
  // Had it been sent, psn 2048 would break F5 (the PSN budget).
  EXPECT_THAT(flowcheck::testing::Ids(model_.Check()), ::testing::IsEmpty());
  ASSERT_EQ(caller_read_resp_segment(qp), 0);  // the last due: the flow is freed
  EXPECT_EQ(qp->priv->flow_state.index, static_cast<u32>(RXE_NUM_TID_FLOWS));
  ASSERT_EQ(caller_read_req_segment(qp, pages, 16), 0);  // a new generation
  EXPECT_EQ(qp->priv->flow_state.psn, 64u);
  EXPECT_EQ(qp->priv->flow_state.generation, kern_flow_generation_next(generation));
  caller_read_req_clear_all(qp, &rec_);
  EXPECT_THAT(Ops(rec_.seen), ElementsAre(CallerOp::kReadReqSegment, CallerOp::kReadRespSegment,
                                          CallerOp::kReadReqClearAll));
  EXPECT_THAT(model_.Check(), ::testing::IsEmpty());
  EXPECT_TRUE(lock_reports_.reports().empty());
}

// The WRITE responder runs the kernel's hfi1_tid_write_alloc_resources: a
// request's arrival allocates max_write (4) segments ahead on the QP's flow
// (set up if it owns none); the send engine allocates no more while they
// are pending; each segment's data frees its TIDs and lets the next be
// allocated. A READ of the same QP uses the same flow.
TEST_F(CallersTest, TheWriteResponderAllocatesAheadUpToMaxWrite) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  rvt_qp* qp = model_.qp(0);
  hfi1_qp_priv* priv = qp->priv;
  const tid_rdma_request& req = priv->model_ack->tid_req;
  const u8 pages[4] = {4, 4, 4, 4};  // 16 pages: 16 packets of 4 KiB
  ASSERT_EQ(caller_write_alloc_segment(qp, pages, 4, &rec_), 0);
  EXPECT_LT(priv->flow_state.index, static_cast<u32>(RXE_NUM_TID_FLOWS));
  EXPECT_EQ(req.total_segs, kModelWriteSegs);
  EXPECT_EQ(req.alloc_seg, 4u);
  EXPECT_EQ(priv->alloc_w_segs, 4u);
  EXPECT_EQ(priv->flow_state.psn, 64u);
  EXPECT_EQ(rec_.seen.back().arg, 4);
  EXPECT_EQ(caller_write_alloc_segment(qp, pages, 4), -EBUSY);  // the send engine: max_write
  EXPECT_EQ(caller_write_alloc_idle(qp), 0);  // data pending: the flow stays
  const u32 flow = priv->flow_state.index;
  ASSERT_EQ(caller_read_req_segment(qp, pages, 4), 0);
  EXPECT_EQ(priv->flow_state.index, flow);
  EXPECT_EQ(priv->flow_state.psn, 80u);
  ASSERT_EQ(caller_read_resp_segment(qp), 0);
  ASSERT_EQ(caller_write_data_segment(qp, &rec_), 0);  // one segment's data: the next allocated
  EXPECT_EQ(rec_.seen.back().arg, 1);
  EXPECT_EQ(req.alloc_seg, 5u);
  EXPECT_EQ(req.comp_seg, 1u);
  EXPECT_EQ(priv->alloc_w_segs, 4u);
  EXPECT_EQ(priv->flow_state.psn, 96u);
  EXPECT_THAT(model_.Check(), ::testing::IsEmpty());
  caller_write_req_clear_all(qp, &rec_);  // a QP reset: the request ends
  EXPECT_EQ(priv->alloc_w_segs, 0u);
  EXPECT_EQ(caller_write_data_segment(qp), -EINVAL);  // none pending
  EXPECT_EQ(caller_write_alloc_idle(qp, &rec_), 1);   // no request left: the flow is freed
  EXPECT_EQ(priv->flow_state.index, static_cast<u32>(RXE_NUM_TID_FLOWS));
  EXPECT_THAT(model_.Check(), ::testing::IsEmpty());
  EXPECT_TRUE(lock_reports_.reports().empty());
}

// A request of 64-page segments uses up the flow's PSN space after 31 of
// them: the allocator stops at the sync point until every pending segment's
// data has arrived, then renews the flow (a new generation, psn 0) and goes
// on; when the last segment's data arrives, with no request left, it frees
// the flow. The invariants hold after every step (F5 included), and the flow
// stays while any segment is pending (R7).
TEST_F(CallersTest, AWriteRequestPassesASyncPointAndFreesTheFlowWhenAllDataArrived)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  rvt_qp* qp = model_.qp(0);
  hfi1_qp_priv* priv = qp->priv;
  const tid_rdma_request& req = priv->model_ack->tid_req;
  const u8 big[16] = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};  // 64 packets
  ASSERT_EQ(caller_write_alloc_segment(qp, big, 16), 0);
  const u32 generation = priv->flow_state.generation;
  while (!priv->sync_pt) {
    ASSERT_EQ(caller_write_data_segment(qp), 0);
    ASSERT_NO_VIOLATIONS(model_.Check());
  }
  EXPECT_EQ(req.alloc_seg, 31u);  // 31 * 64 = 1984; one more would pass 2047
  EXPECT_EQ(priv->flow_state.psn, 1984u);
  // The sync point waits for the data of every segment pending on the old
  // generation; the last one's arrival renews the flow.
  const u32 pending_at_sync = priv->alloc_w_segs;
  ASSERT_GT(pending_at_sync, 1u);
  for (u32 i = 1; i < pending_at_sync; ++i) {
    ASSERT_EQ(caller_write_data_segment(qp), 0);
    EXPECT_TRUE(priv->sync_pt);
    EXPECT_EQ(priv->flow_state.generation, generation);  // data still due on it
    ASSERT_NO_VIOLATIONS(model_.Check());
  }
  ASSERT_EQ(caller_write_data_segment(qp), 0);
  EXPECT_FALSE(priv->sync_pt);
  EXPECT_EQ(priv->flow_state.generation, kern_flow_generation_next(generation));
  EXPECT_EQ(req.alloc_seg, 35u);
  EXPECT_EQ(priv->flow_state.psn, 256u);
  int data = 0;
  while (caller_write_data_segment(qp) == 0) {
    ++data;
    ASSERT_NO_VIOLATIONS(model_.Check());
    if (priv->alloc_w_segs != 0) {
      ASSERT_LT(priv->flow_state.index, static_cast<u32>(RXE_NUM_TID_FLOWS));
    }
  }
  EXPECT_EQ(data, 9);
  EXPECT_EQ(req.comp_seg, kModelWriteSegs);
  EXPECT_EQ(priv->flow_state.index, static_cast<u32>(RXE_NUM_TID_FLOWS));
  EXPECT_TRUE(lock_reports_.reports().empty());
}

// The WQE's flow array lives from the READ's post to its completion
// (hfi1_kern_exp_rcv_alloc_flows, trdma_clean_swqe): the completion frees
// it, the next READ's first segment allocates a new one.
TEST_F(CallersTest, AReadsFlowArrayLivesFromItsFirstSegmentToItsCompletion)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  rvt_qp* qp = model_.qp(0);
  tid_rdma_request* req = &qp->priv->model_swqe->tid_req;
  ASSERT_NE(req->flows, nullptr);  // allocated at QP creation
  const u8 pages[4] = {4, 4, 4, 4};
  ASSERT_EQ(caller_read_req_segment(qp, pages, 4), 0);  // a READ of 2 segments
  ASSERT_EQ(caller_read_resp_segment(qp), 0);
  EXPECT_NE(req->flows, nullptr);
  EXPECT_LT(qp->priv->flow_state.index, static_cast<u32>(RXE_NUM_TID_FLOWS));
  ASSERT_EQ(caller_read_req_segment(qp, pages, 4), 0);
  EXPECT_EQ(caller_read_req_segment(qp, pages, 4), -EBUSY);  // both sent
  ASSERT_EQ(caller_read_resp_segment(qp, &rec_), 0);        // the last response
  EXPECT_EQ(req->flows, nullptr);
  EXPECT_EQ(req->state, TID_REQUEST_COMPLETE);
  EXPECT_EQ(qp->priv->tid_r_comp, qp->priv->tid_r_reqs);
  EXPECT_EQ(qp->priv->flow_state.index, static_cast<u32>(RXE_NUM_TID_FLOWS));
  EXPECT_EQ(caller_read_resp_segment(qp), -EINVAL);  // no response to come
  caller_read_req_clear_all(qp);                      // nothing to clear
  EXPECT_THAT(model_.Check(), ::testing::IsEmpty());
  ASSERT_EQ(caller_read_req_segment(qp, pages, 4), 0);  // a new READ
  ASSERT_NE(req->flows, nullptr);
  // kmalloc's memory is not zeroed; the mini init sets what the code reads
  // before writing it, and the rest keeps the model's poison byte.
  const tid_rdma_flow& unused = req->flows[(req->setup_head + 1) & (MAX_FLOWS - 1)];
  EXPECT_EQ(unused.req, req);
  EXPECT_EQ(unused.npagesets, 0);
  EXPECT_EQ(unused.tnode_cnt, 0xa5);
  EXPECT_THAT(model_.Check(), ::testing::IsEmpty());
  EXPECT_TRUE(lock_reports_.reports().empty());
}

// A request with a segment that found no TIDs is not done: neither the READ
// completion nor the WRITE allocator frees the flow under it. From the
// receive path the WRITE's wait schedules an RNR NAK; the send engine sends
// it, and allocates nothing until the request is resent.
TEST_F(CallersTest, AWaitingSegmentKeepsItsRequestOpen) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  const u8 full[16] = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};  // 16 TID entries
  rvt_qp* other = model_.qp(1);
  other->priv->model_read_segs = 40;
  for (int i = 0; i < kModelExpectedCount / 16; ++i) {
    ASSERT_EQ(caller_read_req_segment(other, full, 16), 0) << i;  // the RcvArray is full
  }
  rvt_qp* qp = model_.qp(0);
  ASSERT_EQ(caller_read_req_segment(qp, full, 16), -EAGAIN);  // on rarr_queue
  EXPECT_EQ(caller_read_resp_segment(qp, &rec_), -EINVAL);  // nothing sent: no response
  ASSERT_EQ(caller_write_alloc_segment(qp, full, 16), -EAGAIN);
  EXPECT_EQ(qp->priv->rnr_nak_state, TID_RNR_NAK_SEND);
  EXPECT_TRUE(qp->priv->model_rnr_nak_deferred);
  EXPECT_EQ(qp->r_nak_state & IB_RNR_NAK, IB_RNR_NAK);
  EXPECT_EQ(caller_write_alloc_idle(qp), 0);  // the RNR NAK goes out
  EXPECT_EQ(qp->priv->rnr_nak_state, TID_RNR_NAK_SENT);
  EXPECT_EQ(caller_write_alloc_idle(qp), 0);  // still no TIDs: the flow stays
  EXPECT_LT(qp->priv->flow_state.index, static_cast<u32>(RXE_NUM_TID_FLOWS));
  ASSERT_EQ(caller_read_resp_segment(other), 0);         // 16 entries free, qp 0 woken
  ASSERT_EQ(caller_write_alloc_segment(qp, full, 16), -EAGAIN);  // resent: its segment first,
  EXPECT_EQ(qp->priv->model_ack->tid_req.alloc_seg, 1u);         // the next finds none
  EXPECT_THAT(model_.Check(), ::testing::IsEmpty());
}

TEST(CallerOpNameTest, NamesEveryOp) {
  EXPECT_STREQ(CallerOpName(CallerOp::kSetupHwFlow), "setup_hw_flow");
  EXPECT_STREQ(CallerOpName(CallerOp::kGiveUpFlowWait), "give_up_flow_wait");
  EXPECT_STREQ(CallerOpName(CallerOp::kReleaseFlow), "release_flow");
  EXPECT_STREQ(CallerOpName(CallerOp::kWriteAllocSegment), "write_alloc_segment");
}

}  // namespace
