// core/exp_rcv_test.cc: the RcvArray side (core/exp_rcv.h) on one context
// of 64 entries in 8 groups: segments take entries group by group, the
// groups move between the lists as the kernel moves them, the QP's PSN
// advances by the segment's packets, short TIDs queue the QP on rarr_queue
// and a clear wakes it; and each G rule of CheckInvariants fires on the
// corruption it names. Single-threaded: the tests read (and corrupt)
// exp_lock state at rest without taking the lock.
#include "core/exp_rcv.h"

#include <vector>

#include "gmock/gmock-matchers.h"
#include "gmock/gmock-more-matchers.h"
#include "gtest/gtest.h"
#include "core/invariants.h"
#include "core/test_model.h"

namespace flowcheck {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using testing::Ids;
using testing::TestModel;

tid_rdma_request* Req(TestModel& m, int i) { return &m.priv(i)->model_swqe->tid_req; }

// Sets up a segment of `psets` pagesets of `pages` pages each for QP i,
// which first gets a hardware flow (as the READ requester does). (The
// analysis cannot tie Req(m, i)->qp to m.qp(i): the same QP.)
int Segment(TestModel& m, int i, int psets, u8 pages = 1) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  std::vector<u8> sizes(psets, pages);
  rvt_sge_state ss{sizes.data(), static_cast<u8>(psets)};
  bool last = false;
  unsigned long flags;
  spin_lock_irqsave(&m.qp(i)->s_lock, flags);
  if (m.priv(i)->flow_state.index >= RXE_NUM_TID_FLOWS) hfi1_kern_setup_hw_flow(m.rcd(), m.qp(i));
  const int ret = hfi1_kern_exp_rcv_setup(Req(m, i), &ss, &last);
  spin_unlock_irqrestore(&m.qp(i)->s_lock, flags);
  return ret;
}

int Clear(TestModel& m, int i) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  unsigned long flags;
  spin_lock_irqsave(&m.qp(i)->s_lock, flags);
  const int ret = hfi1_kern_exp_rcv_clear(Req(m, i));
  spin_unlock_irqrestore(&m.qp(i)->s_lock, flags);
  return ret;
}

int Programmed(TestModel& m) {
  int n = 0;
  for (const auto& e : m.rcd()->rcv_array) n += e.load() != 0;
  return n;
}

TEST(ExpRcv, EveryGroupStartsFree) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  TestModel m(1);
  EXPECT_EQ(m.rcd()->rcv_array_groups, 8);
  EXPECT_EQ(m.rcd()->tid_group_list.count, 8u);
  EXPECT_EQ(m.rcd()->tid_used_list.count + m.rcd()->tid_full_list.count, 0u);
  EXPECT_THAT(m.Check(), IsEmpty());
}

TEST(ExpRcv, ASegmentTakesEntriesInPairsAndAdvancesThePsn) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  TestModel m(1);
  ASSERT_EQ(Segment(m, 0, 4), 0);
  const tid_group& g = m.rcd()->groups[0];
  EXPECT_EQ(g.used, 4);
  EXPECT_EQ(g.map, 0x0f);
  EXPECT_EQ(m.rcd()->tid_used_list.count, 1u);
  EXPECT_EQ(Programmed(m), 4);
  const tid_rdma_flow& flow = Req(m, 0)->flows[0];
  EXPECT_EQ(flow.tidcnt, 2);  // two pairs, one TID entry each
  EXPECT_EQ(flow.npkts, 4);   // 4 pages of 4 KiB at a 4 KiB MTU
  EXPECT_EQ(flow.flow_state.spsn, 0u);
  EXPECT_EQ(flow.flow_state.lpsn, 3u);
  EXPECT_EQ(m.priv(0)->flow_state.psn, 4u);
  EXPECT_EQ(Req(m, 0)->setup_head, 1);
  EXPECT_THAT(m.Check(), IsEmpty());
}

TEST(ExpRcv, AnEightKMtuSendsHalfThePackets) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  TestModel m(1);
  m.qp(0)->pmtu = 8192;
  ASSERT_EQ(Segment(m, 0, 4, 2), 0);  // 4 pagesets of 2 pages
  EXPECT_EQ(Req(m, 0)->flows[0].npkts, 4);
  EXPECT_EQ(m.priv(0)->flow_state.psn, 4u);
}

TEST(ExpRcv, WholeGroupsGoToTheFullListAndComeBack) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  TestModel m(1);
  ASSERT_EQ(Segment(m, 0, 20), 0);  // two complete groups, then 4 of a third
  EXPECT_EQ(m.rcd()->tid_full_list.count, 2u);
  EXPECT_EQ(m.rcd()->tid_used_list.count, 1u);
  EXPECT_EQ(m.rcd()->tid_group_list.count, 5u);
  EXPECT_EQ(Programmed(m), 20);
  EXPECT_THAT(m.Check(), IsEmpty());
  ASSERT_EQ(Clear(m, 0), 0);
  EXPECT_EQ(m.rcd()->tid_group_list.count, 8u);
  EXPECT_EQ(Programmed(m), 0);
  EXPECT_THAT(m.Check(), IsEmpty());
}

TEST(ExpRcv, ShortTidsQueueTheQpOnRarrAndAClearWakesIt) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  TestModel m(2);
  ASSERT_EQ(Segment(m, 0, 60), 0);
  EXPECT_EQ(Segment(m, 1, 8), -EAGAIN);  // 4 entries left
  EXPECT_THAT(m.rarr_queue_qpns(), ElementsAre(2u));
  EXPECT_TRUE(m.waiting(1));
  EXPECT_THAT(m.Check(), IsEmpty());
  ASSERT_EQ(Clear(m, 0), 0);  // wakes the head of rarr_queue: qp 2
  EXPECT_FALSE(m.wq().Pending().empty());
  m.wq().RunAll();
  EXPECT_EQ(Segment(m, 1, 8), 0);
  EXPECT_THAT(m.rarr_queue_qpns(), IsEmpty());
  EXPECT_THAT(m.Check(), IsEmpty());
}

TEST(ExpRcv, TheRingHoldsNFlowsAndClearAllEmptiesIt) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  TestModel m(1);
  for (int s = 0; s < TID_RDMA_MAX_READ_SEGS_PER_REQ; ++s) ASSERT_EQ(Segment(m, 0, 2), 0) << s;
  EXPECT_EQ(Segment(m, 0, 2), -EINVAL);
  EXPECT_EQ(Programmed(m), 12);
  unsigned long flags;
  spin_lock_irqsave(&m.qp(0)->s_lock, flags);
  hfi1_kern_exp_rcv_clear_all(Req(m, 0));
  spin_unlock_irqrestore(&m.qp(0)->s_lock, flags);
  EXPECT_EQ(Programmed(m), 0);
  EXPECT_EQ(Clear(m, 0), -EINVAL);
  EXPECT_THAT(m.Check(), IsEmpty());
}

// Each G rule, on a context whose QP holds one segment of 4 entries (group
// 0, map 0x0f), corrupted as the rule's name says.
class GRules : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(Segment(m_, 0, 4), 0); }
  tid_group& g0() { return m_.rcd()->groups[0]; }
  std::vector<std::string> Found() { return Ids(m_.Check()); }
  TestModel m_{1};
};

TEST_F(GRules, G1AGroupOnTheWrongList) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  tid_group_move(&g0(), &m_.rcd()->tid_used_list, &m_.rcd()->tid_group_list);
  EXPECT_THAT(Found(), ElementsAre("G1"));
}

TEST_F(GRules, G2AUsedCountThatDisagreesWithTheMap) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  g0().used = 3;
  EXPECT_THAT(Found(), ::testing::Contains("G2"));
}

TEST_F(GRules, G3AListCountThatDisagreesWithItsLength) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  m_.rcd()->tid_used_list.count = 2;
  EXPECT_THAT(Found(), ElementsAre("G3", "G3"));  // its length, and the sum
}

TEST_F(GRules, G4HalfAPair) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  g0().map = 0x07;
  g0().used = 3;
  EXPECT_THAT(Found(), ::testing::Contains("G4"));
}

TEST_F(GRules, G5EntriesInUseThatNoSegmentHolds) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  tid_group_move(&m_.rcd()->groups[1], &m_.rcd()->tid_group_list, &m_.rcd()->tid_used_list);
  m_.rcd()->groups[1].used = 2;
  m_.rcd()->groups[1].map = 0x03;
  EXPECT_THAT(Found(), ElementsAre("G5"));
}

TEST_F(GRules, G6TidEntriesThatDoNotCoverThePlan) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  tid_rdma_flow& f = Req(m_, 0)->flows[0];  // 4 pagesets of 1 page: 2 TID entries of 2 pages
  ASSERT_EQ(f.tidcnt, 2);
  EXPECT_THAT(Found(), IsEmpty());
  f.tid_entry[1] += EXP_TID_SET(LEN, 1);  // a pair's entry says 3 pages
  EXPECT_THAT(Found(), ElementsAre("G6"));
  f.tid_entry[1] -= EXP_TID_SET(LEN, 1);
  f.tidcnt = 1;  // one entry for two pairs
  EXPECT_THAT(Found(), ElementsAre("G6"));
}

TEST_F(GRules, G7AnEntryProgrammedTwiceOrValidWhileFree) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  hfi1_put_tid(m_.dd(), 0, PT_EXPECTED, 0x1000, 0);  // entry 0 is valid already
  EXPECT_THAT(Found(), ElementsAre("G7"));
  TestModel m(1);
  hfi1_put_tid(m.dd(), 9, PT_EXPECTED, 0x1000, 0);  // entry 9 is free
  EXPECT_THAT(Ids(m.Check()), ElementsAre("G7"));
}

TEST_F(GRules, G7AnEntryInTwoLiveSegments) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  // A second QP's ring claims the first's entries (a copy of its segment).
  TestModel m(2);
  ASSERT_EQ(Segment(m, 0, 4), 0);
  tid_rdma_request* other = Req(m, 1);
  ASSERT_EQ(caller_setup_hw_flow(m.qp(1)), 0);  // its slot runs on its own flow (R7)
  other->flows[0] = Req(m, 0)->flows[0];  // its plan, pagesets and TID entries (G6)
  other->flows[0].req = other;
  other->flows[0].idx = m.priv(1)->flow_state.index;
  other->setup_head = 1;
  // G7 once per entry held twice (4), G5 as the entries count twice.
  EXPECT_THAT(Ids(m.Check()), UnorderedElementsAre("G5", "G7", "G7", "G7", "G7"));
}

}  // namespace
}  // namespace flowcheck
