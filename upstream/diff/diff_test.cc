// upstream/diff/diff_test.cc: the differential machinery can fail. Core's
// model (the mirror) and the kernel's text agree on a run of every op kind;
// a field changed in one world is reported under its name with both values;
// a return value that differs is reported (through the fuzz executor:
// fuzz/model_vs_upstream_test.cc).
// --config=upstream only (the kernel's text is //core:core there).
#include <memory>
#include <string>
#include <vector>

#include "common/strings.h"
#include "core/hfi1_constants.h"
#include "core/oracle/lockstep.h"
#include "gtest/gtest.h"
#include "lockcheck/spinlock.h"
#include "upstream/diff/model_mirror.h"

namespace flowcheck {
namespace diff {
namespace {

using oracle::Lockstep;
using oracle::Op;
using oracle::OpKind;

class DiffTest : public ::testing::Test {
 protected:
  DiffTest() : ls_(3, 42), mirror_(MakeCoreModelMirror(3, 42)) { ls_.set_mirror(mirror_.get()); }
  ~DiffTest() override { ls_.set_mirror(nullptr); }
  Lockstep ls_;
  std::unique_ptr<Lockstep::Mirror> mirror_;
};

TEST_F(DiffTest, EveryOpKindAgrees) {
  const std::vector<Op> ops = {
      {OpKind::kSetupHwFlow, 0},      {OpKind::kReserveFlow, 0, -1}, {OpKind::kSetupHwFlow, 1},
      {OpKind::kRarrWait, 1},         {OpKind::kRarrGrant, 0},       {OpKind::kRarrRelease, 0},
      {OpKind::kSetWantsFlow, 2, 1},  {OpKind::kResync, 2, 0x7ff},   {OpKind::kClearResync, 2},
      {OpKind::kClearHwFlow, 0},      {OpKind::kRunWork},            {OpKind::kRunWork},
      {OpKind::kFlushWait, 1},        {OpKind::kReleaseFlow, 0, 1},  {OpKind::kRunWork},
  };
  for (const Op& op : ops) {
    oracle::StepResult r = ls_.Step(op);
    EXPECT_EQ(DifferentialLines(r.diffs), std::vector<std::string>()) << oracle::OpToString(op);
  }
  ls_.Reset(43);
  EXPECT_EQ(DifferentialLines(ls_.Compare()), std::vector<std::string>()) << "after Reset";
}

TEST_F(DiffTest, AChangedFieldIsNamedWithBothValues) {
  ls_.Step({OpKind::kSetupHwFlow, 0});
  hfi1_ctxtdata* rcd = ls_.rcd();
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  const u32 gen = rcd->flows[5].generation;
  rcd->flows[5].generation = gen ^ 1;  // the kernel's world only
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  const std::vector<std::string> lines = DifferentialLines(ls_.Compare());
  EXPECT_EQ(lines, std::vector<std::string>{flowcheck::StrFormat(
                       "differential: flow 5: generation: kernel 0x%x, core 0x%x", gen ^ 1, gen)});
  spin_lock_irqsave(&rcd->exp_lock, flags);
  rcd->flows[5].generation = gen;
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  EXPECT_EQ(DifferentialLines(ls_.Compare()), std::vector<std::string>());
}

TEST_F(DiffTest, ADifferentReturnValueIsReported) {
  hfi1_ctxtdata* rcd = ls_.rcd();
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  rcd->flow_mask = 0xFFFFFFFFul;  // every flow taken in the kernel's world only
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  const std::vector<std::string> lines =
      DifferentialLines(ls_.Step({OpKind::kSetupHwFlow, 0}).diffs);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], flowcheck::StrFormat(
                          "setup_hw_flow(qp#0): returned %d, core's model returned 0", -EAGAIN));
}

}  // namespace
}  // namespace diff
}  // namespace flowcheck
