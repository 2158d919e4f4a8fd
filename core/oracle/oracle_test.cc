// The oracle against the model: scripted sequences for each worked example,
// seeded random sequences, and proof that the comparison catches a model that
// goes wrong.
#include <climits>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/bitops.h"
#include "core/invariants.h"
#include "core/oracle/flow_oracle.h"
#include "core/oracle/lockstep.h"
#include "core/reference.h"
#include "gmock/gmock-matchers.h"
#include "gmock/gmock-more-matchers.h"
#include "gtest/gtest.h"

namespace {

using flowcheck::Severity;
using flowcheck::oracle::FlowOracle;
using flowcheck::oracle::Lockstep;
using flowcheck::oracle::Op;
using flowcheck::oracle::OpKind;
using flowcheck::oracle::StepResult;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Runs `ops` in lockstep; every step must agree. Returns the last result.
StepResult RunAll(Lockstep& ls, const std::vector<Op>& ops) {
  StepResult r;
  for (const Op& op : ops) {
    r = ls.Step(op);
    EXPECT_TRUE(r.ok()) << r.ToString();
    if (!r.ok()) break;
  }
  return r;
}

TEST(OracleAgrees, ReserveContractForEveryClassOfLast) {
  Lockstep ls(1, 7);
  std::vector<Op> ops;
  for (int64_t last : {5, 5, 32, 33, -1, INT_MIN, INT_MAX, 31, 0}) {
    ops.push_back({OpKind::kReserveFlow, 0, last});
  }
  RunAll(ls, ops);
  // Handed out so far: 5, then 0, 1, 2, 3, 4, 6 (lowest free), 31, 7.
  EXPECT_EQ(ls.Step({OpKind::kReserveFlow, 0, 5}).model_ret, 8);
  for (int i = 0; i < 22; ++i) EXPECT_EQ(ls.Step({OpKind::kReserveFlow, 0, -1}).model_ret, 9 + i);
  StepResult full = ls.Step({OpKind::kReserveFlow, 0, 3});
  EXPECT_TRUE(full.ok()) << full.ToString();
  EXPECT_EQ(full.model_ret, -11);
}

TEST(OracleAgrees, FifoHandoffChain) {
  Lockstep ls(4, 11);
  std::vector<Op> ops;
  for (int f = 0; f < 31; ++f) ops.push_back({OpKind::kReserveFlow, 0, f});
  ops.push_back({OpKind::kSetupHwFlow, 0});  // gets flow 31
  for (int q = 1; q < 4; ++q) {
    ops.push_back({OpKind::kSetWantsFlow, q, 1});
    ops.push_back({OpKind::kSetupHwFlow, q});  // queued
  }
  ops.push_back({OpKind::kClearHwFlow, 0});
  for (int i = 0; i < 4; ++i) ops.push_back({OpKind::kRunWork});
  ops.push_back({OpKind::kReleaseFlow, 0, 4});  // frees a flow, wakes nobody
  ops.push_back({OpKind::kSetupHwFlow, 0});     // a newcomer: queued
  ops.push_back({OpKind::kClearHwFlow, 1});
  for (int i = 0; i < 6; ++i) ops.push_back({OpKind::kRunWork});
  RunAll(ls, ops);
  EXPECT_EQ(ls.oracle().qp(1).flows_granted, 1u);
  EXPECT_EQ(ls.oracle().qp(2).flows_granted, 1u);
  EXPECT_THAT(ls.CheckInvariants(), IsEmpty());
}

TEST(OracleAgrees, R1MischargedDequeues) {
  Lockstep ls(3, 5);
  RunAll(ls, {{OpKind::kRarrWait, 0},
              {OpKind::kRarrWait, 1},
              {OpKind::kFlushWait, 0},
              {OpKind::kSetupHwFlow, 1},
              {OpKind::kRarrWait, 2},
              {OpKind::kRarrRelease, 0},
              {OpKind::kRunWork},
              {OpKind::kRarrGrant, 2}});
  EXPECT_EQ(ls.oracle().flow_queue().dequeue, 2u);
  EXPECT_EQ(ls.oracle().rarr_queue().dequeue, 1u);
  auto v = ls.CheckInvariants();
  EXPECT_FALSE(flowcheck::HasSeverity(v, Severity::kViolation)) << flowcheck::FormatViolations(v);
  EXPECT_TRUE(flowcheck::HasSeverity(v, Severity::kUpstreamDivergence));
}

TEST(OracleAgrees, ResyncSavedAndReprogrammed) {
  Lockstep ls(2, 3);
  const int64_t psn = (0x777 << 11) - 1;
  RunAll(ls, {{OpKind::kResync, 0, psn},
              {OpKind::kResync, 0, psn},  // dropped: resync pending
              {OpKind::kClearResync, 0},
              {OpKind::kSetupHwFlow, 0},
              {OpKind::kSetupHwFlow, 1},
              {OpKind::kResync, 1, 0x7FFFFFFF},
              {OpKind::kClearHwFlow, 0}});
  EXPECT_EQ(ls.oracle().generation(0), flowcheck::reference::NextGeneration(0x777));
}

// Random but replayable op sequences. Domain rules the fuzz decoder must also
// follow: release only what the harness reserved.
Op RandomOp(std::mt19937_64& rng, const Lockstep& ls) {
  const FlowOracle& o = ls.oracle();
  const int n = ls.num_qps();
  const int qp = static_cast<int>(rng() % n);
  switch (rng() % 16) {
    case 0: case 1: case 2: return {OpKind::kSetupHwFlow, qp};
    case 3: case 4: return {OpKind::kClearHwFlow, qp};
    case 5: return {OpKind::kFlushWait, qp};
    case 6: return {OpKind::kRarrWait, qp};
    case 7: return {OpKind::kRarrGrant, qp};
    case 8: return {OpKind::kRarrRelease, qp};
    case 9: return {OpKind::kSetWantsFlow, qp, static_cast<int64_t>(rng() % 4 != 0)};
    case 10: {
      // A plausible RESYNC most of the time: next(generation) or the one before.
      uint32_t g = o.qp(qp).generation;
      uint32_t want = rng() % 3 == 0 ? static_cast<uint32_t>(rng()) & 0xFFFFF
                                     : flowcheck::reference::NextGeneration(g) - (rng() % 2);
      return {OpKind::kResync, qp, static_cast<int64_t>(((want & 0xFFFFF) << 11) - 1) & 0x7FFFFFFF};
    }
    case 11: return {OpKind::kClearResync, qp};
    case 12: {
      static const int kLasts[] = {0, 3, 31, 32, 33, -1, INT_MIN, INT_MAX};
      return {OpKind::kReserveFlow, 0, kLasts[rng() % 8]};
    }
    case 13: {
      unsigned long h = o.harness_flows();
      if (h == 0) return {OpKind::kRunWork};
      int idx;
      do idx = static_cast<int>(rng() % 32); while (!((h >> idx) & 1));
      return {OpKind::kReleaseFlow, 0, idx};
    }
    default: return {OpKind::kRunWork};
  }
}

TEST(OracleAgrees, SeededRandomSequences) {
  constexpr int kSeeds = 60, kSteps = 400;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    Lockstep ls(1 + seed % 6, seed);
    std::mt19937_64 rng(seed);
    for (int step = 0; step < kSteps; ++step) {
      Op op = RandomOp(rng, ls);
      StepResult r = ls.Step(op);
      ASSERT_TRUE(r.ok()) << "seed " << seed << " step " << step << "\n" << r.ToString();
      auto v = ls.CheckInvariants();
      ASSERT_FALSE(flowcheck::HasSeverity(v, Severity::kViolation))
          << "seed " << seed << " step " << step << " after " << OpToString(op) << "\n"
          << flowcheck::FormatViolations(v);
    }
  }
}

// Reset must be indistinguishable from construction: after a messy history,
// a reset Lockstep and a fresh one give the same results and states for the
// same ops (the fuzz targets reuse one Lockstep per QP count).
TEST(OracleAgrees, ResetIsAsFresh) {
  for (int seed = 1; seed <= 12; ++seed) {
    const int n = 1 + seed % 8;
    Lockstep reused(n, 999);
    std::mt19937_64 dirt(seed * 7);
    for (int i = 0; i < 300; ++i) reused.Step(RandomOp(dirt, reused));
    reused.Reset(seed);
    Lockstep fresh(n, seed);
    for (int f = 0; f < flowcheck::oracle::kNumFlows; ++f) {
      ASSERT_EQ(reused.oracle().generation(f), fresh.oracle().generation(f)) << "seed " << seed;
    }
    ASSERT_THAT(reused.Compare(), IsEmpty()) << "seed " << seed;
    ASSERT_THAT(reused.CheckInvariants(), IsEmpty()) << "seed " << seed;
    std::mt19937_64 rng_a(seed), rng_b(seed);
    for (int step = 0; step < 300; ++step) {
      const Op a = RandomOp(rng_a, reused), b = RandomOp(rng_b, fresh);
      const StepResult ra = reused.Step(a), rb = fresh.Step(b);
      ASSERT_EQ(OpToString(a), OpToString(b)) << "seed " << seed << " step " << step;
      ASSERT_TRUE(ra.ok()) << ra.ToString();
      ASSERT_EQ(ra.model_ret, rb.model_ret) << "seed " << seed << " step " << step;
      ASSERT_EQ(ra.oracle_ret, rb.oracle_ret) << "seed " << seed << " step " << step;
      ASSERT_EQ(reused.CheckInvariants().size(), fresh.CheckInvariants().size());
    }
  }
}

TEST(OracleDisagrees, WhenTheModelHandsOutAFlowBehindItsBack) {
  Lockstep ls(2, 9);
  ASSERT_TRUE(ls.Step({OpKind::kSetupHwFlow, 0}).ok());
  unsigned long flags;
  spin_lock_irqsave(&ls.rcd()->exp_lock, flags);
  set_bit(3, &ls.rcd()->flow_mask);  // a "bug": flow 3 taken, nobody owns it
  spin_unlock_irqrestore(&ls.rcd()->exp_lock, flags);
  StepResult r = ls.Step({OpKind::kSetupHwFlow, 1});
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.ToString(), HasSubstr("flow 3: reserved: model yes, oracle no"));
}

TEST(OracleDisagrees, WhenAReturnValueOrAQueueDiffers) {
  Lockstep ls(2, 9);
  for (int f = 0; f < 32; ++f) ls.Step({OpKind::kReserveFlow, 0, f});
  ASSERT_TRUE(ls.Step({OpKind::kSetupHwFlow, 0}).ok());  // queued
  unsigned long flags;
  spin_lock_irqsave(&ls.rcd()->exp_lock, flags);
  clear_bit(9, &ls.rcd()->flow_mask);  // the model frees flow 9 silently
  spin_unlock_irqrestore(&ls.rcd()->exp_lock, flags);
  StepResult r = ls.Step({OpKind::kSetupHwFlow, 0});  // the head retries
  EXPECT_NE(r.model_ret, r.oracle_ret);
  EXPECT_THAT(r.ToString(), HasSubstr("model returned 0, oracle -11"));
  EXPECT_THAT(r.ToString(), HasSubstr("flow_queue: members: model [], oracle [qp 1]"));
  EXPECT_THAT(r.ToString(), HasSubstr("qp 1 (#0): flow_state.index: model 9, oracle 32"));
}

}  // namespace
