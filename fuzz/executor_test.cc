// The executor on the correct model: random programs never fail (no false
// positives), runs are deterministic, the legalisation rules hold, strict
// mode turns the kernel's own hazards into failures with a full report, and
// the report carries the markers the self-test classifies.
#include "fuzz/executor.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fuzz/input_format.h"
#include "gmock/gmock-matchers.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace fuzz {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

Program MustDecode(const std::vector<uint8_t>& b) {
  DecodeResult d = Decode(b.data(), b.size());
  EXPECT_TRUE(d.ok()) << d.error;
  return d.program;
}

std::vector<uint8_t> RandomInput(std::mt19937_64& rng, Format f) {
  std::vector<uint8_t> b(rng() % 400);
  for (uint8_t& x : b) x = static_cast<uint8_t>(rng());
  // A valid header most of the time (else the decoder rejects it outright).
  if (rng() % 8 != 0 && b.size() >= 2) {
    b[0] = static_cast<uint8_t>(f);
    b[1] = 1;
  }
  return b;
}

// Thousands of pseudo-random inputs through decode + execute on the correct
// model: no failure, no crash (ASan/UBSan/TSan watch in those configs).
TEST(Executor, RandomBytesNeverFailOnTheCorrectModel) {
  std::mt19937_64 rng(20240601);
  size_t executed = 0, calls = 0;
  for (int i = 0; i < 3000; ++i) {
    const Format f = i % 3 == 0 ? Format::kReserve : (i % 3 == 1 ? Format::kFlow : Format::kPure);
    const std::vector<uint8_t> b = RandomInput(rng, f);
    DecodeResult d = Decode(b.data(), b.size());
    if (!d.ok()) continue;
    ++executed;
    ExecResult r = Execute(d.program, ExecOptions());
    calls += r.calls;
    ASSERT_TRUE(r.ok) << "input #" << i << "\n" << FailureReport(d.program, r.failure);
  }
  EXPECT_GT(executed, 2000u);  // the test really ran programs
  EXPECT_GT(calls, 50000u);
}

// Same program twice, the second time after other programs: same trace.
TEST(Executor, DeterministicAcrossPooledRuns) {
  std::mt19937_64 rng(7);
  std::vector<uint8_t> b = RandomInput(rng, Format::kFlow);
  b.resize(300);
  b[0] = 'F';
  b[1] = 1;
  const Program p = MustDecode(b);
  auto trace = [&p]() {
    std::vector<std::string> lines;
    ExecOptions o;
    o.on_step = [&lines](const StepRecord& s) {
      lines.push_back(s.call + " " + std::to_string(s.model_ret) + " " +
                      std::to_string(s.mask_after));
    };
    Execute(p, o);
    return lines;
  };
  const std::vector<std::string> first = trace();
  for (int i = 0; i < 20; ++i) {
    const std::vector<uint8_t> other = RandomInput(rng, Format::kFlow);
    DecodeResult d = Decode(other.data(), other.size());
    if (d.ok()) Execute(d.program, ExecOptions());
  }
  EXPECT_EQ(trace(), first);
  EXPECT_GT(first.size(), 50u);
}

// [R-1]: a QP waiting on rarr_queue and flushed is charged to flow_queue.
// Not a failure by default (the kernel does it); a W5 failure under strict.
const std::vector<uint8_t> kR1 = {'F', 1, 2, 0, 0, 0, 0, 0, 0,  // setup_hw_flow(qp#0)
                                  3,   0, 0, 0,                 // rarr_wait(qp#0)
                                  2,   0, 0, 0,                 // flush_wait(qp#0)
                                  0,   1, 0, 0};                // setup_hw_flow(qp#1)

TEST(Executor, UpstreamDivergenceIsAFindingNotAFailureByDefault) {
  ExecResult r = Execute(MustDecode(kR1), ExecOptions());
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.calls, 4u);
  EXPECT_EQ(r.divergent_steps, 2u);  // after the flush, and after the last setup
}

TEST(Executor, StrictModeFailsAtTheStepThatDiverges) {
  const Program p = MustDecode(kR1);
  ExecOptions strict;
  strict.strict = true;
  ExecResult r = Execute(p, strict);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.failure.layer, FailLayer::kInvariant);
  EXPECT_EQ(r.failure.op_index, 2u);
  EXPECT_EQ(r.failure.op, "flush_wait(qp#0)");
  ASSERT_FALSE(r.failure.violations.empty());
  EXPECT_EQ(r.failure.violations[0].id, "W5");
  // The fast path re-runs with a trace to fill in the bitmaps.
  EXPECT_TRUE(r.failure.has_masks);
  EXPECT_EQ(r.failure.mask_before, 1u);
  EXPECT_EQ(r.failure.mask_after, 1u);
  const std::string report = FailureReport(p, r.failure);
  EXPECT_THAT(report,
              StartsWith("flowcheck: FAIL [invariant W5] flow_fuzz op #2 flush_wait(qp#0)\n"));
  EXPECT_THAT(report, HasSubstr("flow_mask before: model     0x00000001 [#......"));
  EXPECT_THAT(report, HasSubstr("[R-1] flow_queue: enqueue 0 - dequeue 1"));
}

// The legalisation rules: each mapped op is what a legal caller does.
TEST(Executor, IllegalCallsAreMappedToWhatACallerDoes) {
  const Program p = MustDecode({'F', 1, 1, 0, 0, 4, 0, 0, 0,  // rarr_grant without a flow -> setup
                                5,   1, 0, 0,    // rarr_release without a grant -> no call
                                4,   1, 0, 0,    // rarr_grant (qp#1 of 2) ... qp 1 % 2
                                12,  0, 0, 0});  // release_owned with nothing -> no call
  std::vector<std::string> calls;
  ExecOptions o;
  o.on_step = [&calls](const StepRecord& s) { calls.push_back(s.call); };
  ASSERT_TRUE(Execute(p, o).ok);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_THAT(calls[0], StartsWith("setup_hw_flow(qp#0) (instead: the QP owns no flow yet"));
  EXPECT_THAT(calls[1], StartsWith("no call: nothing programmed"));
  EXPECT_THAT(calls[2], StartsWith("setup_hw_flow(qp#1) (instead:"));
  EXPECT_EQ(calls[3], "no call: the harness owns no flow");
}

TEST(Executor, ReleaseIndexOnlyReleasesWhatTheHarnessOwns) {
  const Program p = MustDecode({'R', 1,    0, 0, 4, 0, 0, 0,  // reserve(4) -> 4
                                3,   0,    0, 0, 0, 0,        // qp#0 takes flow 0
                                2,   0,    0, 0, 0, 0,        // release_index(0): qp#0's
                                2,   9,    0, 0, 0, 0,        // release_index(9): free
                                2,   0xF0, 0, 0, 0, 0,        // release_index(-16)
                                2,   4,    0, 0, 0, 0});      // release_index(4): ours
  std::vector<StepRecord> steps;
  ExecOptions o;
  o.on_step = [&steps](const StepRecord& s) { steps.push_back(s); };
  ASSERT_TRUE(Execute(p, o).ok);
  ASSERT_EQ(steps.size(), 6u);
  EXPECT_EQ(steps[0].model_ret, 4);
  EXPECT_EQ(steps[1].mask_after, 0x11u);
  EXPECT_EQ(steps[2].call, "no call: flow 0 is owned by qp#0, not by the harness");
  EXPECT_EQ(steps[3].call, "no call: flow 9 is free; releasing it would be a double free");
  EXPECT_THAT(steps[4].call, HasSubstr("-16 is not a flow index"));
  EXPECT_EQ(steps[5].call, "release_flow(idx=4)");
  EXPECT_EQ(steps[5].mask_after, 0x01u);
}

TEST(Executor, FillStopsAtEagain) {
  const Program p = MustDecode({'R', 1, 5, 0, 0, 0, 0, 0});
  std::vector<StepRecord> steps;
  ExecOptions o;
  o.on_step = [&steps](const StepRecord& s) { steps.push_back(s); };
  ASSERT_TRUE(Execute(p, o).ok);
  ASSERT_EQ(steps.size(), 33u);
  EXPECT_EQ(steps[31].mask_after, 0xFFFFFFFFu);
  EXPECT_EQ(steps[32].model_ret, -11);
  EXPECT_EQ(steps[32].sub, 32);
}

TEST(Executor, PureOpsAgreeWithTheReference) {
  std::vector<uint8_t> b = {'P', 1};
  for (int op = 0; op < kPureOpCount; ++op) {
    for (int sel : {0, 1, 2, 3, 0x41, 0x82, 0xC3}) {
      b.insert(b.end(), {static_cast<uint8_t>(op), static_cast<uint8_t>(sel), 0xFE, 0xFF, 0x0F, 0,
                         0xFF, 0xFF, 0xFF, 0xFF});
    }
  }
  ExecResult r = Execute(MustDecode(b), ExecOptions());
  EXPECT_TRUE(r.ok) << FailureReport(MustDecode(b), r.failure);
  EXPECT_EQ(r.calls, static_cast<size_t>(kPureOpCount * 7));
}

TEST(FailureReport, OracleLayerMarkerAndBitmaps) {
  Program p;
  p.format = Format::kReserve;
  Failure f;
  f.layer = FailLayer::kOracle;
  f.op_index = 3;
  f.sub = 2;
  f.op = "fill()";
  f.call = "reserve_flow(last=-1)";
  f.model_ret = 32;
  f.oracle_ret = -11;
  f.diffs = {"flow_mask bits 32..63: model 1, oracle 0"};
  f.has_masks = true;
  f.mask_before = f.oracle_mask_before = 0xFFFFFFFFu;
  f.mask_after = 0x1FFFFFFFFull;
  f.oracle_mask_after = 0xFFFFFFFFu;
  const std::string s = FailureReport(p, f);
  EXPECT_THAT(s, StartsWith("flowcheck: FAIL [oracle] reserve_fuzz op #3 (call 3) fill()\n"));
  EXPECT_THAT(s, HasSubstr("returned: model 32, oracle -11  <-- differ"));
  EXPECT_THAT(s, HasSubstr("0xffffffff [################################] + bits above 31: 0x1"));
  EXPECT_THAT(s, HasSubstr("    flow_mask bits 32..63: model 1, oracle 0"));
}

}  // namespace
}  // namespace fuzz
}  // namespace flowcheck
