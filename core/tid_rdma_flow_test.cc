// Flows and generations (docs/kernel.md, "Flows and generations"): kern_reserve_flow's contract for
// every class of `last`, generation arithmetic, register values, and the
// setup/clear pair as a QP sees it.
#include <climits>
#include <vector>

#include "core/bitops.h"
#include "core/callers.h"
#include "core/test_model.h"
#include "core/tid_rdma.h"
#include "gmock/gmock-matchers.h"
#include "gmock/gmock-more-matchers.h"
#include "gtest/gtest.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/report.h"

namespace {

using flowcheck::testing::TestModel;

constexpr u64 kReleasedRegister = 0x6D7FFFF800ull;  // docs/kernel.md, "The RcvTIDFlowTable register"
u64 ActiveRegister(u32 gen) { return 0x6F00000000ull | (static_cast<u64>(gen) << 11); }

// Sets flow_mask to `mask`, calls kern_reserve_flow(last) under exp_lock, and
// returns {result, flow_mask after}.
std::pair<int, unsigned long> Reserve(TestModel& m, unsigned long mask, int last) {
  hfi1_ctxtdata* rcd = m.rcd();
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  rcd->flow_mask = mask;
  int r = kern_reserve_flow(rcd, last);
  unsigned long after = rcd->flow_mask;
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  return {r, after};
}

TEST(KernReserveFlow, FreePreferredFlowIsReturnedForEveryIndex) {
  TestModel m(0);
  for (int last = 0; last < RXE_NUM_TID_FLOWS; ++last) {
    // Lower flows taken, so "lowest free" would be a different answer.
    const unsigned long mask = (1UL << last) - 1;
    auto [r, after] = Reserve(m, mask & ~(1UL << last), last);
    EXPECT_EQ(r, last);
    EXPECT_EQ(after, (mask & ~(1UL << last)) | (1UL << last));
  }
  // And with every other flow free: still `last`, not flow 0.
  auto [r, after] = Reserve(m, 0, 17);
  EXPECT_EQ(r, 17);
  EXPECT_EQ(after, 1UL << 17);
}

TEST(KernReserveFlow, TakenPreferredFlowFallsBackToLowestFree) {
  TestModel m(0);
  auto [r, after] = Reserve(m, 0b1011UL | (1UL << 9), 9);
  EXPECT_EQ(r, 2);
  EXPECT_EQ(after, 0b1111UL | (1UL << 9));
}

TEST(KernReserveFlow, OutOfRangeLastMeansDontCare) {
  TestModel m(0);
  const unsigned long taken = 0b111UL | (1UL << 20);  // lowest free is 3
  for (int last : {RXE_NUM_TID_FLOWS, RXE_NUM_TID_FLOWS + 1, -1, INT_MIN, INT_MAX, 63, 64}) {
    SCOPED_TRACE(last);
    auto [r, after] = Reserve(m, taken, last);
    EXPECT_EQ(r, 3);
    EXPECT_EQ(after, taken | (1UL << 3));
  }
}

TEST(KernReserveFlow, AllTakenReturnsEagainAndLeavesTheMaskUnchanged) {
  TestModel m(0);
  const unsigned long full = 0xFFFFFFFFUL;
  for (int last : {0, 5, 31, RXE_NUM_TID_FLOWS, RXE_NUM_TID_FLOWS + 1, -1, INT_MIN, INT_MAX}) {
    SCOPED_TRACE(last);
    auto [r, after] = Reserve(m, full, last);
    EXPECT_EQ(r, -EAGAIN);
    EXPECT_EQ(after, full);  // bit 32 stays clear: ffz found it, > 31 refused
  }
}

TEST(KernReserveFlow, ThirtyTwoReservationsHandOutEachFlowOnce) {
  TestModel m(0);
  std::vector<bool> seen(RXE_NUM_TID_FLOWS);
  int lasts[] = {7, 7, -1, 32, INT_MAX, 31, 0, 0, 12};
  for (int i = 0; i < RXE_NUM_TID_FLOWS; ++i) {
    int r = caller_reserve_flow(m.rcd(), lasts[i % 9]);
    ASSERT_GE(r, 0);
    ASSERT_LT(r, RXE_NUM_TID_FLOWS);
    EXPECT_FALSE(seen[r]) << "flow " << r << " handed out twice";
    seen[r] = true;
  }
  EXPECT_EQ(m.flow_mask(), 0xFFFFFFFFUL);
  EXPECT_EQ(caller_reserve_flow(m.rcd(), 3), -EAGAIN);
  caller_release_flow(m.rcd(), 3);
  EXPECT_EQ(caller_reserve_flow(m.rcd(), -1), 3);
}

// Bypasses the compile-time check to show the run-time one.
int ReserveWithoutLock(hfi1_ctxtdata* rcd, int last) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  return kern_reserve_flow(rcd, last);
}

TEST(KernReserveFlow, WithoutExpLockReportsAtRunTime) {
  TestModel m(0);
  lockcheck::RecordingHandler rec;
  EXPECT_EQ(ReserveWithoutLock(m.rcd(), 4), 4);
  EXPECT_EQ(rec.count(lockcheck::Rule::kAssertHeld), 1);
}

TEST(Generation, MaskGenerationKeepsTwentyBits) {
  EXPECT_EQ(mask_generation(0xFFFFFFFF), KERN_GENERATION_RESERVED);
  EXPECT_EQ(mask_generation(0x12345678), 0x45678u);
}

TEST(Generation, NextGenerationWorkedExamples) {
  EXPECT_EQ(kern_flow_generation_next(5), 6u);
  EXPECT_EQ(kern_flow_generation_next(0xFFFFD), 0xFFFFEu);
  EXPECT_EQ(kern_flow_generation_next(0xFFFFE), 0u);  // skips 0xFFFFF
  EXPECT_EQ(kern_flow_generation_next(0xFFFFF), 0u);
}

TEST(Generation, NextGenerationIsNeverReservedAndVisitsAllOthers) {
  u32 g = 0;
  for (u32 i = 0; i < GENERATION_MASK; ++i) {
    g = kern_flow_generation_next(g);
    ASSERT_NE(g, KERN_GENERATION_RESERVED);
  }
  EXPECT_EQ(g, 0u);  // a cycle of length 2^20 - 1
}

TEST(HwFlowRegister, ActiveAndReleasedValues) {
  TestModel m(0);
  kern_set_hw_flow(m.rcd(), 0x12345, 7);
  EXPECT_EQ(m.flow_register(7), 0x0000006F00000000ull | (0x12345ull << 11));
  EXPECT_EQ(read_r_next_psn(m.dd(), 0, 7), 0x12345u << 11);
  kern_set_hw_flow(m.rcd(), 0, 7);
  EXPECT_EQ(m.flow_register(7), 0x0000006F00000000ull);
  kern_set_hw_flow(m.rcd(), KERN_GENERATION_RESERVED, 7);
  EXPECT_EQ(m.flow_register(7), 0x0000006D7FFFF800ull);
}

TEST(KernSetupAndClearHwFlow, SetupProgramsWithoutAdvancingClearAdvancesAndReleases) {
  TestModel m(0);
  hfi1_ctxtdata* rcd = m.rcd();
  m.set_flow_generation(4, 0xFFFFE);
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  EXPECT_EQ(kern_setup_hw_flow(rcd, 4), 0xFFFFEu);
  EXPECT_EQ(rcd->flows[4].generation, 0xFFFFEu);
  EXPECT_EQ(rcd->rcv_tid_flow_table[4].load(), ActiveRegister(0xFFFFE));
  kern_clear_hw_flow(rcd, 4);
  EXPECT_EQ(rcd->flows[4].generation, 0u);  // wrapped past RESERVED
  EXPECT_EQ(rcd->rcv_tid_flow_table[4].load(), kReleasedRegister);
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
}

TEST(InitGenerations, SeededRunsReplayAndEveryRegisterStartsReleased) {
  TestModel a(0, /*seed=*/42), b(0, /*seed=*/42), c(0, /*seed=*/43);
  int same_as_other_seed = 0;
  for (int f = 0; f < RXE_NUM_TID_FLOWS; ++f) {
    EXPECT_EQ(a.flow_generation(f), b.flow_generation(f));
    EXPECT_LE(a.flow_generation(f), GENERATION_MASK);
    EXPECT_EQ(a.flow_register(f), kReleasedRegister);
    same_as_other_seed += a.flow_generation(f) == c.flow_generation(f);
  }
  EXPECT_LT(same_as_other_seed, 2);
}

TEST(HfiKernSetupHwFlow, GrantsTheFlowsGenerationWithPsnZero) {
  TestModel m(1);
  const u32 gen = m.flow_generation(0);
  ASSERT_EQ(caller_setup_hw_flow(m.qp(0)), 0);
  const tid_flow_state& fs = m.priv(0)->flow_state;
  EXPECT_EQ(fs.index, 0);
  EXPECT_EQ(fs.last_index, 0);
  EXPECT_EQ(fs.generation, gen);
  EXPECT_EQ(fs.psn, 0u);
  EXPECT_EQ(m.flow_mask(), 1UL);
  EXPECT_EQ(m.flow_register(0), ActiveRegister(gen));
  // A second call while owning: 0, nothing changes.
  ASSERT_EQ(caller_setup_hw_flow(m.qp(0)), 0);
  EXPECT_EQ(m.flow_mask(), 1UL);
  EXPECT_THAT(m.Check(), ::testing::IsEmpty());
}

TEST(HfiKernClearHwFlow, ReleasesAdvancesAndIsIdempotent) {
  TestModel m(1);
  const u32 gen = m.flow_generation(0);
  ASSERT_EQ(caller_setup_hw_flow(m.qp(0)), 0);
  caller_clear_hw_flow(m.qp(0));
  const tid_flow_state& fs = m.priv(0)->flow_state;
  EXPECT_EQ(fs.index, RXE_NUM_TID_FLOWS);
  EXPECT_EQ(fs.last_index, 0);  // kept
  EXPECT_EQ(fs.generation, KERN_GENERATION_RESERVED);
  EXPECT_EQ(fs.psn, 0u);
  EXPECT_EQ(m.flow_mask(), 0UL);
  EXPECT_EQ(m.flow_generation(0), kern_flow_generation_next(gen));
  EXPECT_EQ(m.flow_register(0), kReleasedRegister);
  caller_clear_hw_flow(m.qp(0));  // no flow: nothing happens
  EXPECT_EQ(m.flow_generation(0), kern_flow_generation_next(gen));
  EXPECT_THAT(m.Check(), ::testing::IsEmpty());
}

TEST(HfiKernClearHwFlow, LastIndexIsPreferredAfterRelease) {
  TestModel m(1);
  for (int f = 0; f < 10; ++f) ASSERT_EQ(caller_reserve_flow(m.rcd(), f), f);
  ASSERT_EQ(caller_setup_hw_flow(m.qp(0)), 0);
  ASSERT_EQ(m.priv(0)->flow_state.index, 10);
  for (int f = 0; f < 10; ++f) caller_release_flow(m.rcd(), f);
  caller_clear_hw_flow(m.qp(0));
  ASSERT_EQ(caller_setup_hw_flow(m.qp(0)), 0);
  EXPECT_EQ(m.priv(0)->flow_state.index, 10);  // not the lowest free (0)
}

TEST(HfiKernSetupHwFlow, NewOwnerOfAReleasedFlowGetsTheNextGenerationAcrossTheWrap) {
  TestModel m(2);
  m.set_flow_generation(0, 0xFFFFE);
  ASSERT_EQ(caller_setup_hw_flow(m.qp(0)), 0);
  EXPECT_EQ(m.priv(0)->flow_state.generation, 0xFFFFEu);
  caller_clear_hw_flow(m.qp(0));
  ASSERT_EQ(caller_setup_hw_flow(m.qp(1)), 0);
  EXPECT_EQ(m.priv(1)->flow_state.index, 0);
  EXPECT_EQ(m.priv(1)->flow_state.generation, 0u);  // not 0xFFFFF
  EXPECT_EQ(m.flow_register(0), ActiveRegister(0));
  EXPECT_THAT(m.Check(), ::testing::IsEmpty());
}

TEST(Resync, GenerationSavedWithoutAFlowIsUsedByTheNextSetup) {
  TestModel m(1);
  const u32 gen = 0x1234;
  const u32 psn = (gen << HFI1_KDETH_BTH_SEQ_SHIFT) - 1;  // what the requester sends
  EXPECT_TRUE(caller_resync(m.qp(0), psn));
  EXPECT_EQ(m.priv(0)->flow_state.generation, gen);
  EXPECT_THAT(m.Check(), ::testing::IsEmpty());  // F6: a RESYNC-saved value
  caller_clear_resync(m.qp(0));                   // its ACK went out
  EXPECT_THAT(m.Check(), ::testing::IsEmpty());
  ASSERT_EQ(caller_setup_hw_flow(m.qp(0)), 0);
  const int f = m.priv(0)->flow_state.index;
  EXPECT_EQ(m.flow_generation(f), gen);  // copied into the flow
  EXPECT_EQ(m.flow_register(f), ActiveRegister(gen));
  EXPECT_THAT(m.Check(), ::testing::IsEmpty());
}

TEST(Resync, OwnedFlowIsReprogrammedAndDuplicatesAreDropped) {
  TestModel m(1);
  ASSERT_EQ(caller_setup_hw_flow(m.qp(0)), 0);
  const u32 old_gen = m.priv(0)->flow_state.generation;
  const u32 next = kern_flow_generation_next(old_gen);
  EXPECT_FALSE(caller_resync(m.qp(0), (kern_flow_generation_next(next) << 11) - 1));  // too far
  EXPECT_TRUE(caller_resync(m.qp(0), (next << 11) - 1));
  EXPECT_EQ(m.priv(0)->flow_state.generation, next);
  EXPECT_EQ(m.flow_generation(0), next);
  EXPECT_EQ(m.flow_register(0), ActiveRegister(next));
  EXPECT_FALSE(caller_resync(m.qp(0), (next << 11) - 1));  // resync already set
  EXPECT_THAT(m.Check(), ::testing::IsEmpty());
}

}  // namespace
