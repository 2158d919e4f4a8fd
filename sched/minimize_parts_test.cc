// The minimizer's parts (minimize.h): the failure marker, the preemption
// count, the output path, and the guided strategy that runs its candidates.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sched/minimize.h"
#include "sched/strategy.h"

namespace {

TEST(FailureMarker, BlanksAddressesAndLockcheckThreadIdsOnly) {
  const std::string a = sched::FailureMarker(
      "lockcheck", "lock-order-inversion on &s->a (0x5622aa0c11f0) in thread 19 \"ab\"");
  const std::string b = sched::FailureMarker(
      "lockcheck", "lock-order-inversion on &s->a (0x7fff01e2c8) in thread 203 \"ab\"");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, "[lockcheck] lock-order-inversion on &s->a (0x?) in thread ? \"ab\"");
  // Everything else counts: thread names, other numbers, the kind.
  EXPECT_NE(a, sched::FailureMarker("lockcheck", "lock-order-inversion on &s->a (0x11111111) in "
                                                 "thread 19 \"ba\""));
  EXPECT_NE(sched::FailureMarker("check", "ops-1 set bit 0"),
            sched::FailureMarker("check", "ops-1 set bit 1"));
  EXPECT_NE(sched::FailureMarker("check", "x"), sched::FailureMarker("deadlock", "x"));
  // A short hexadecimal number is a value (a mask), not an address.
  EXPECT_EQ(sched::FailureMarker("check", "flow_mask 0x3 at 0x7ffd5b1c2a40"),
            "[check] flow_mask 0x3 at 0x?");
  EXPECT_NE(sched::FailureMarker("check", "flow_mask 0x3"),
            sched::FailureMarker("check", "flow_mask 0x1"));
  // "thread" followed by a number but no name is not a lockcheck id.
  EXPECT_EQ(sched::FailureMarker("check", "thread 3 of 4"), "[check] thread 3 of 4");
}

TEST(CountPreemptions, OnlySwitchesAwayFromARunnableThread) {
  // thread/runnable: 0 runs; switch to 1 while 0 runnable (1 preemption);
  // 1 goes on; 1 ended (not runnable): 0 runs, no preemption; 0 -> 1 again.
  const std::vector<sched::ScheduledDecision> d = {
      {0, 0x3}, {1, 0x3}, {1, 0x3}, {0, 0x1}, {0, 0x3}, {1, 0x3}};
  EXPECT_EQ(sched::CountPreemptions(d), 2);
  EXPECT_EQ(sched::CountPreemptions({}), 0);
}

TEST(CountOps, CountsElementsOfOpsParametersOnly) {
  EXPECT_EQ(sched::CountOps({{"ops.0", "a,b,c"}, {"ops.1", ""}, {"ops.2", "x"}, {"threads", "4"},
                             {"ops", "9"}}),
            4);
}

TEST(MinimizedPath, BesideTheInputNeverTheInput) {
  EXPECT_EQ(sched::MinimizedPath("/nonexistent-dir/a.schedule"), "/nonexistent-dir/a.min.schedule");
  EXPECT_EQ(sched::MinimizedPath("/nonexistent-dir/a"), "/nonexistent-dir/a.min.schedule");
  EXPECT_EQ(sched::MinimizedPath("/nonexistent-dir/a.min.schedule"),
            "/nonexistent-dir/a.min.min.schedule");
}

TEST(GuidedStrategy, FollowsWhereItFitsElseGoesOnElseLowest) {
  auto s = sched::MakeGuidedStrategy({{1, 0x3}, {2, 0x7}});
  ASSERT_TRUE(s->BeginExecution(0));
  std::string why;
  sched::Decision d;
  d.step = 0;
  d.runnable = 0x3;
  EXPECT_EQ(s->Choose(d, &why), 1);  // recorded and runnable
  d.step = 1;
  d.current = 1;
  d.current_runnable = true;
  d.runnable = 0x3;
  EXPECT_EQ(s->Choose(d, &why), 1);  // recorded 2 cannot run: the current goes on
  d.step = 2;
  d.current = 1;
  d.current_runnable = false;
  d.runnable = 0x5;
  EXPECT_EQ(s->Choose(d, &why), 0);  // past the list, current blocked: the lowest
  EXPECT_TRUE(why.empty());
  EXPECT_FALSE(s->BeginExecution(1));
}

}  // namespace
