// Adding an op is one row of the op table (program/op_table.h) plus its runner:
// this test's build of the engine (//program:program_with_test_op) has one more
// row, test_nudge (program/testdata/test_op_rows.h), and that row's runner, and
// nothing else; the op is then parsed and printed, explored by dfs where it
// fits, skipped where it does not, and run through its caller.
#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sched/run.h"
#include "program/config.h"
#include "program/op_list.h"
#include "program/program_space.h"
#include "program/scenario_testing.h"

namespace flowcheck {
namespace program {
namespace {

TEST(OpTable, ARowIsParsedAndPrinted) {
  std::vector<ListedOp> ops;
  std::string error;
  ASSERT_TRUE(ParseOps("setup@0,test_nudge@1", &ops, &error)) << error;
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[1].kind, kOpTestNudge);
  EXPECT_EQ(ops[1].a, 1);
  EXPECT_STREQ(ListedOpName(kOpTestNudge), "test_nudge");
  EXPECT_EQ(FormatOps(ops), "setup@0,test_nudge@1");
  EXPECT_TRUE(IsQpOp(kOpTestNudge));
  EXPECT_FALSE(ParseOps("test_nudge@0.4", &ops, &error));  // a slot op takes no second argument
}

TEST(OpTable, DfsExploresTheRowWhereItFits) {
  StressConfig c = SmallDfsConfig(2);
  c.irq_thread = false;
  std::string error;
  const ProgramSpace space(c, &error);
  ASSERT_EQ(error, "");
  const std::vector<ListedOp>& alphabet = space.alphabet(0);
  EXPECT_NE(std::find(alphabet.begin(), alphabet.end(), ListedOp{kOpTestNudge, 0, 0}),
            alphabet.end());
  bool after_setup = false, alone = false;
  for (const auto& list : space.Lists(0)) {
    after_setup |= FormatOps(list) == "setup@0,test_nudge@0";
    alone |= FormatOps(list) == "test_nudge@0";  // an idle QP: it fits no state
  }
  EXPECT_TRUE(after_setup);
  EXPECT_FALSE(alone);
  EXPECT_EQ(space.Canonical(0, {{kOpTestNudge, 0, 0}}), std::vector<ListedOp>{});
}

TEST(OpTable, TheRowRunsThroughItsRunnerWhereItFitsOnly) {
  const auto run = [](const std::string& ops) {
    const int before = g_test_nudges.load();
    const sched::RunResult r =
        RunStressDfs({{"threads", "2"}, {"qps_per_thread", "1"}, {"contexts", "1"},
                      {"workers", "1"}, {"irq_thread", "0"}, {"seed", "1"},
                      {"ops.stress-0", ops}, {"ops.stress-1", "setup@0"}},
                     /*max_preemptions=*/1);
    EXPECT_FALSE(r.failed) << ops << ": " << r.failure_line;
    EXPECT_TRUE(r.dfs_exhausted);
    return g_test_nudges.load() - before;
  };
  EXPECT_GT(run("setup@0,test_nudge@0"), 0);  // owns a flow in some schedules
  EXPECT_EQ(run("test_nudge@0"), 0);          // idle in every schedule: skipped
}

}  // namespace
}  // namespace program
}  // namespace flowcheck
