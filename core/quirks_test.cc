// The kernel's hazards, kept in the model and shown happening: [R-1] (a
// dequeue charged to the wrong queue), [R-7] (a RESERVED initial generation)
// and [R-3] (a RESYNC that programs RESERVED). Each is reported by
// CheckInvariants as an "upstream divergence", never as a plain violation.
#include <string>
#include <vector>

#include "core/callers.h"
#include "core/exp_rcv.h"
#include "core/invariants.h"
#include "core/test_model.h"
#include "core/tid_rdma.h"
#include "gmock/gmock-matchers.h"
#include "gmock/gmock-more-matchers.h"
#include "gtest/gtest.h"

namespace {

using flowcheck::InvariantViolation;
using flowcheck::Severity;
using flowcheck::testing::Ids;
using flowcheck::testing::TestModel;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr u64 kReleasedRegister = 0x6D7FFFF800ull;

TEST(R1, FlushOfARarrWaiterIsChargedToFlowQueueAndPositionsDrift) {
  TestModel m(3);
  caller_rarr_wait(m.qp(0));
  EXPECT_THAT(m.Check(), IsEmpty());

  caller_flush_wait(m.qp(0));  // flushes flow_queue first
  EXPECT_THAT(m.rarr_queue_qpns(), IsEmpty());
  EXPECT_EQ(m.rarr_counters().enqueue, 1u);
  EXPECT_EQ(m.rarr_counters().dequeue, 0u);  // its removal was never counted
  EXPECT_EQ(m.flow_counters().dequeue, 1u);  // charged here instead
  EXPECT_EQ(m.refs(0), 1);                   // the reference itself is right

  std::vector<InvariantViolation> v = m.Check();
  EXPECT_THAT(Ids(v), ElementsAre("W5", "W5"));
  for (const InvariantViolation& x : v) {
    EXPECT_EQ(x.severity, Severity::kUpstreamDivergence) << x.ToString();
    EXPECT_THAT(x.detail, HasSubstr("[R-1]"));
  }

  // The drift is permanent and reaches the RNR-timeout estimate: the next
  // waiter on each queue is first in line, yet position_in_queue says 2 on
  // rarr_queue and 0 on flow_queue.
  caller_rarr_wait(m.qp(1));
  EXPECT_EQ(m.position(1, /*flow_queue=*/false), 2u);
  for (int f = 0; f < RXE_NUM_TID_FLOWS; ++f) caller_reserve_flow(m.rcd(), f);
  ASSERT_EQ(caller_setup_hw_flow(m.qp(2)), -EAGAIN);
  EXPECT_EQ(m.position(2, /*flow_queue=*/true), 0u);
  EXPECT_FALSE(flowcheck::HasSeverity(m.Check(0xFFFFFFFFUL), Severity::kViolation));
}

TEST(R1, FlowGrantToARarrWaiterUnlinksItFromRarrQueue) {
  // A QP waiting for RcvArray space that gets a flow is taken off rarr_queue
  // by dequeue_tid_waiter(flow_queue): its TID wait is silently lost and the
  // counters of both queues drift.
  TestModel m(2);
  caller_rarr_wait(m.qp(0));
  caller_rarr_wait(m.qp(1));
  ASSERT_EQ(caller_setup_hw_flow(m.qp(0)), 0);
  EXPECT_THAT(m.rarr_queue_qpns(), ElementsAre(2u));
  EXPECT_FALSE(m.waiting(0));
  EXPECT_EQ(m.flow_counters().dequeue, 1u);
  EXPECT_EQ(m.rarr_counters().dequeue, 0u);
  std::vector<InvariantViolation> v = m.Check();
  EXPECT_THAT(Ids(v), ElementsAre("W5", "W5"));
  EXPECT_FALSE(flowcheck::HasSeverity(v, Severity::kViolation)) << flowcheck::FormatViolations(v);
}

// [R-1]'s grant path from the kernel's own callers (docs/findings.md): one
// QP that is a TID READ requester and a TID WRITE responder at once shares
// one flow and one tid_wait node between the roles. Its WRITE segment waits
// for RcvArray space; the READ response that completes its last READ frees
// the flow (hfi1_rc_rcv_tid_rdma_read_resp); the WRITE allocator then sets
// up a flow, whose grant unlinks the RcvArray wait and charges flow_queue.
TEST(R1, AReadCompletionUnderAWaitingWriteResponderReachesTheGrantPath) {
  TestModel m(2);
  const u8 full[16] = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};  // 16 TID entries
  m.priv(0)->model_read_segs = 1;   // qp 0 posts a one-segment READ
  m.priv(1)->model_read_segs = 40;  // qp 1 a long one
  ASSERT_EQ(caller_read_req_segment(m.qp(0), full, 16), 0);  // flow and TIDs
  for (int i = 1; i < kModelExpectedCount / 16; ++i) {
    ASSERT_EQ(caller_read_req_segment(m.qp(1), full, 16), 0) << i;  // the RcvArray is full
  }
  ASSERT_EQ(caller_write_alloc_segment(m.qp(0), full, 16), -EAGAIN);  // the same flow; no TIDs
  EXPECT_THAT(m.rarr_queue_qpns(), ElementsAre(1u));
  // The READ's response frees 16 entries, wakes qp 0, and completes the READ:
  // tid_r_comp == tid_r_reqs, the flow is freed.
  ASSERT_EQ(caller_read_resp_segment(m.qp(0)), 0);
  EXPECT_EQ(m.priv(0)->flow_state.index, static_cast<u32>(RXE_NUM_TID_FLOWS));
  EXPECT_THAT(m.rarr_queue_qpns(), ElementsAre(1u));  // on rarr_queue without a flow
  EXPECT_THAT(m.Check(), IsEmpty());
  // The request resent after its RNR NAK: the allocator sets up a flow,
  // whose grant unlinks the QP from rarr_queue, then gives the waiting
  // segment its TIDs; its next segment finds none and queues it again.
  ASSERT_EQ(caller_write_alloc_segment(m.qp(0), full, 16), -EAGAIN);
  EXPECT_EQ(m.priv(0)->model_ack->tid_req.alloc_seg, 1u);
  EXPECT_THAT(m.rarr_queue_qpns(), ElementsAre(1u));
  EXPECT_EQ(m.rarr_counters().enqueue, 2u);
  EXPECT_EQ(m.rarr_counters().dequeue, 0u);  // its removal was never counted
  EXPECT_EQ(m.flow_counters().dequeue, 1u);  // charged to flow_queue instead
  std::vector<InvariantViolation> v = m.Check();
  EXPECT_THAT(Ids(v), ElementsAre("W5", "W5"));
  for (const InvariantViolation& x : v) {
    EXPECT_EQ(x.severity, Severity::kUpstreamDivergence) << x.ToString();
    EXPECT_THAT(x.detail, HasSubstr("[R-1]"));
  }
}

// the same sharing seen from the flow: the READ completion's clear
// does not look at the WRITE responder's segments (nor does the responder's
// allocator look at the READ's), so a QP in both roles can lose the flow
// under a live WRITE segment, and another QP can be given that flow while the
// segment's data is still due on it. R7 reports it as an upstream divergence.
TEST(R10, AReadCompletionFreesTheFlowUnderALiveWriteSegment) {
  TestModel m(2);
  const u8 pages[4] = {4, 4, 4, 4};
  m.priv(0)->model_read_segs = 1;
  ASSERT_EQ(caller_read_req_segment(m.qp(0), pages, 4), 0);
  ASSERT_EQ(caller_write_alloc_segment(m.qp(0), pages, 4), 0);  // on the READ's flow
  const tid_rdma_request& write = m.priv(0)->model_ack->tid_req;
  const u32 flow = write.flows[write.clear_tail].idx;
  ASSERT_EQ(caller_read_resp_segment(m.qp(0)), 0);  // the READ's last: tid_r_comp == tid_r_reqs
  EXPECT_EQ(m.priv(0)->flow_state.index, static_cast<u32>(RXE_NUM_TID_FLOWS));
  EXPECT_EQ(m.priv(0)->alloc_w_segs, 4u);  // the WRITE segments are still live
  ASSERT_EQ(caller_setup_hw_flow(m.qp(1)), 0);
  EXPECT_EQ(m.priv(1)->flow_state.index, flow);  // handed to another QP
  std::vector<InvariantViolation> v = m.Check();
  EXPECT_THAT(Ids(v), ElementsAre("R7", "R7", "R7", "R7"));  // one per live segment
  for (const InvariantViolation& x : v) {
    EXPECT_EQ(x.severity, Severity::kUpstreamDivergence) << x.ToString();
    EXPECT_THAT(x.detail, HasSubstr("[R-10] qp 1's live WRITE segment"));
  }
}

// And the other way round: the WRITE allocator, its request done and all
// its data in, frees the flow ("No requests left to process ... clear the
// flow") under a live READ segment.
TEST(R10, TheWriteAllocatorFreesTheFlowUnderALiveReadSegment) {
  TestModel m(1);
  const u8 pages[4] = {4, 4, 4, 4};
  ASSERT_EQ(caller_write_alloc_segment(m.qp(0), pages, 4), 0);
  for (u32 i = 1; i < kModelWriteSegs; ++i) ASSERT_EQ(caller_write_data_segment(m.qp(0)), 0) << i;
  ASSERT_EQ(caller_read_req_segment(m.qp(0), pages, 4), 0);  // on the WRITE's flow
  ASSERT_EQ(caller_write_data_segment(m.qp(0)), 0);          // the last data: flow freed
  EXPECT_EQ(m.priv(0)->flow_state.index, static_cast<u32>(RXE_NUM_TID_FLOWS));
  const tid_rdma_request& read = m.priv(0)->model_swqe->tid_req;
  EXPECT_EQ((read.setup_head - read.clear_tail) & (MAX_FLOWS - 1), 1);  // still live
  std::vector<InvariantViolation> v = m.Check();
  EXPECT_THAT(Ids(v), ElementsAre("R7"));
  EXPECT_FALSE(flowcheck::HasSeverity(v, Severity::kViolation)) << flowcheck::FormatViolations(v);
}

// [R-12] (docs/findings.md): a TID READ that ends without completing (its
// WQE flushed by a QP reset or error, hfi1_trdma_send_complete with an
// error status) is never counted in tid_r_comp, and nothing resets
// tid_r_reqs or tid_r_comp while the QP lives. From then on the READ
// response's "Current request is completed and there are no more requests"
// (tid_r_comp == tid_r_reqs) never holds: a completed READ keeps its flow,
// and the idle QP holds one of its context's 32 flows.
TEST(R12, AReadEndedByAResetIsNeverCountedSoLaterReadsKeepTheirFlow) {
  TestModel m(1);
  const u8 pages[4] = {4, 4, 4, 4};
  m.priv(0)->model_read_segs = 1;
  ASSERT_EQ(caller_read_req_segment(m.qp(0), pages, 4), 0);
  ASSERT_EQ(caller_read_resp_segment(m.qp(0)), 0);  // complete: the flow is freed
  EXPECT_EQ(m.priv(0)->flow_state.index, static_cast<u32>(RXE_NUM_TID_FLOWS));
  ASSERT_EQ(caller_read_req_segment(m.qp(0), pages, 4), 0);
  caller_read_req_clear_all(m.qp(0));  // a QP reset: the READ's WQE is flushed
  caller_clear_hw_flow(m.qp(0));
  EXPECT_EQ(m.priv(0)->tid_r_reqs, 2u);
  EXPECT_EQ(m.priv(0)->tid_r_comp, 1u);
  ASSERT_EQ(caller_read_req_segment(m.qp(0), pages, 4), 0);  // a new READ
  ASSERT_EQ(caller_read_resp_segment(m.qp(0)), 0);          // completes it
  EXPECT_EQ(m.priv(0)->model_swqe->tid_req.state, TID_REQUEST_COMPLETE);
  EXPECT_EQ(m.priv(0)->pending_tid_r_segs, 0u);  // nothing in flight
  EXPECT_LT(m.priv(0)->flow_state.index, static_cast<u32>(RXE_NUM_TID_FLOWS));  // kept
  EXPECT_THAT(m.Check(), IsEmpty());  // no invariant forbids an idle owner
}

// from a kernel caller: a QP put in the error state (ib_modify_qp to
// ERR, as ib_drain_qp does) while its TID READ has segments set up. The send
// engine flushes the WQE (hfi1_trdma_send_complete -> trdma_clean_swqe),
// which frees the flow array without clearing the ring; the reset's
// hfi1_qp_kern_exp_rcv_clear_all then walks only from s_acked, already past
// the flushed WQE. The segments' RcvArray entries stay in use for good.
TEST(R6, AReadFlushedInTheErrorStateOrphansItsRcvArrayEntries) {
  TestModel m(2);
  const u8 full[16] = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};  // 16 TID entries
  ASSERT_EQ(caller_read_req_segment(m.qp(0), full, 16), 0);
  caller_read_req_flush_complete(m.qp(0));
  EXPECT_EQ(m.priv(0)->model_swqe->tid_req.flows, nullptr);
  caller_clear_hw_flow(m.qp(0));  // the reset: its flow, nothing else
  std::vector<InvariantViolation> v = m.Check();
  EXPECT_THAT(Ids(v), ElementsAre("G5"));
  for (const InvariantViolation& x : v) {
    EXPECT_EQ(x.severity, Severity::kUpstreamDivergence) << x.ToString();
    EXPECT_THAT(x.detail, HasSubstr("[R-6]"));
  }
  // The context lost them: of its 64 entries another QP gets 48.
  m.priv(1)->model_read_segs = 40;
  for (int i = 0; i < 3; ++i) ASSERT_EQ(caller_read_req_segment(m.qp(1), full, 16), 0) << i;
  EXPECT_EQ(caller_read_req_segment(m.qp(1), full, 16), -EAGAIN);
}

// Finds the first seed whose context gets a RESERVED initial generation.
u64 FirstSeedWithReservedGeneration(int* flow) {
  for (u64 seed = 0; seed < (1u << 22); ++seed) {
    hfi1_model_random r;
    r.state = seed;
    for (int f = 0; f < RXE_NUM_TID_FLOWS; ++f) {
      if (mask_generation(get_random_u32(&r)) == KERN_GENERATION_RESERVED) {
        *flow = f;
        return seed;
      }
    }
  }
  return ~0ull;
}

TEST(R7, ARandomInitialGenerationCanBeReservedAndItsFirstOwnerRunsWithIt) {
  int flow = -1;
  const u64 seed = FirstSeedWithReservedGeneration(&flow);
  ASSERT_NE(seed, ~0ull);
  std::printf("[R-7] seed %llu gives flow %d the RESERVED generation\n",
              static_cast<unsigned long long>(seed), flow);
  TestModel m(1, seed);
  ASSERT_EQ(m.flow_generation(flow), KERN_GENERATION_RESERVED);
  std::vector<InvariantViolation> v = m.Check();
  ASSERT_THAT(Ids(v), ElementsAre("F4"));
  EXPECT_EQ(v[0].severity, Severity::kUpstreamDivergence);
  EXPECT_THAT(v[0].detail, HasSubstr("[R-7]"));

  // Its first owner gets generation 0xFFFFF: "none" in flow_state, and the
  // register is programmed as if the flow were released (no header
  // suppression) although it is in use.
  for (int f = 0; f < flow; ++f) caller_reserve_flow(m.rcd(), f);
  ASSERT_EQ(caller_setup_hw_flow(m.qp(0)), 0);
  ASSERT_EQ(m.priv(0)->flow_state.index, flow);
  EXPECT_EQ(m.priv(0)->flow_state.generation, KERN_GENERATION_RESERVED);
  EXPECT_EQ(m.flow_register(flow), kReleasedRegister);
  v = m.Check((1UL << flow) - 1);
  ASSERT_THAT(Ids(v), ElementsAre("F2"));
  EXPECT_EQ(v[0].severity, Severity::kUpstreamDivergence);
  EXPECT_THAT(v[0].detail, HasSubstr("header suppression is off"));

  // Released, the flow moves on to generation 0 and everything is clean.
  caller_clear_hw_flow(m.qp(0));
  EXPECT_EQ(m.flow_generation(flow), 0u);
  EXPECT_THAT(m.Check((1UL << flow) - 1), IsEmpty());
}

u32 AllOnes(void*) { return 0xFFFFFFFF; }

TEST(R7, AGenerationHookReachesItDirectly) {
  TestModel m(0);
  m.rcd()->random.hook = &AllOnes;
  hfi1_kern_init_ctxt_generations(m.rcd());
  for (int f = 0; f < RXE_NUM_TID_FLOWS; ++f) {
    EXPECT_EQ(m.flow_generation(f), KERN_GENERATION_RESERVED);
    EXPECT_EQ(m.flow_register(f), kReleasedRegister);
  }
  std::vector<InvariantViolation> v = m.Check();
  EXPECT_EQ(v.size(), 32u);
  EXPECT_FALSE(flowcheck::HasSeverity(v, Severity::kViolation));
}

TEST(R3, ResyncAtTheGenerationWrapProgramsTheReservedGeneration) {
  TestModel m(1);
  m.set_flow_generation(0, 0xFFFFE);
  ASSERT_EQ(caller_setup_hw_flow(m.qp(0)), 0);
  auto psn_for = [](u32 gen) { return mask_psn((gen << HFI1_KDETH_BTH_SEQ_SHIFT) - 1); };
  // A duplicate RESYNC for the current generation is refused ...
  EXPECT_FALSE(caller_resync(m.qp(0), psn_for(0xFFFFE)));
  // ... but RESERVED, "next(0xFFFFE) - 1", is accepted and programmed.
  EXPECT_TRUE(caller_resync(m.qp(0), psn_for(KERN_GENERATION_RESERVED)));
  EXPECT_EQ(m.priv(0)->flow_state.generation, KERN_GENERATION_RESERVED);
  EXPECT_EQ(m.flow_register(0), kReleasedRegister);
  std::vector<InvariantViolation> v = m.Check();
  ASSERT_THAT(Ids(v), ElementsAre("F2"));
  EXPECT_EQ(v[0].severity, Severity::kUpstreamDivergence);
  EXPECT_THAT(v[0].detail, HasSubstr("[R-3]"));
}

}  // namespace
