// Failures the scheduler itself detects: a deadlock (reported with its
// wait-for cycle and every thread's held locks), a livelock or starvation
// (the step bound), and how lockcheck reports end or accompany an execution.
#include <regex>
#include <string>

#include "gtest/gtest.h"
#include "sched/cli.h"
#include "sched/run.h"

namespace {

class FailuresTest : public ::testing::TestWithParam<std::string> {
 protected:
  sched::RunResult RunScenario(const std::string& name, const sched::ScenarioParams& given,
                               const std::string& strategy, const std::string& lockcheck = "end",
                               uint64_t max_steps = 10000) {
    const sched::ScenarioSpec* spec = sched::FindScenario(name);
    EXPECT_NE(spec, nullptr);
    sched::Options o;
    std::string error;
    EXPECT_TRUE(sched::ResolveParams(*spec, given, &o.params, &error)) << error;
    auto setup = spec->make(o.params, &error);
    o.scenario = name;
    EXPECT_TRUE(::sched::Parse(strategy, &o.strategy));
    o.max_executions = strategy == "dfs" ? 0 : 1000;
    o.max_preemptions = 2;
    EXPECT_TRUE(::sched::Parse(lockcheck, &o.lockcheck_reports));
    o.max_steps = max_steps;
    EXPECT_TRUE(::sched::Parse(GetParam(), &o.backend));
    o.out = nullptr;
    o.verbosity = 0;
    o.schedule_out = ::testing::TempDir() + "/";
    return sched::Run(o, setup);
  }
};

const char kCycle[] =
    "wait-for cycle \\(thread -> what it waits for -> its holder\\): "
    "thread [0-9]+ \"(ab|ba)\" -> &s->(a|b) \\(0x[0-9a-f]+\\) -> "
    "thread [0-9]+ \"(ab|ba)\" -> &s->(a|b) \\(0x[0-9a-f]+\\) -> thread [0-9]+ \"(ab|ba)\"\n";

TEST_P(FailuresTest, AnAbbaDeadlockIsReportedWithItsCycleAndEveryThreadsLocks) {
  // lockcheck reports the inversion first in every execution (it sees both
  // orders); "record" lets the search go on to the real deadlock.
  const sched::RunResult r = RunScenario("abba", {{"variant", "classic"}}, "dfs", "record");
  ASSERT_TRUE(r.failed) << r.output;
  EXPECT_EQ(r.failure_kind, "deadlock");
  EXPECT_EQ(r.failure_line, "nothing can run and some threads wait");
  EXPECT_TRUE(std::regex_search(r.report, std::regex(kCycle))) << r.report;
  EXPECT_TRUE(std::regex_search(
      r.report, std::regex("\"ab\": waits for &s->b \\(0x[0-9a-f]+\\) held by thread [0-9]+ "
                           "\"ba\"; holds 1 lock:\n      &s->a \\(0x[0-9a-f]+\\) acquired at")))
      << r.report;
  EXPECT_TRUE(std::regex_search(
      r.report, std::regex("\"ba\": waits for &s->a \\(0x[0-9a-f]+\\) held by thread [0-9]+ "
                           "\"ab\"; holds 1 lock:\n      &s->b \\(0x[0-9a-f]+\\) acquired at")))
      << r.report;
  // lockcheck's own view names the same waits.
  EXPECT_NE(r.report.find("all threads known to lockcheck:"), std::string::npos);
  EXPECT_TRUE(
      std::regex_search(r.report, std::regex("waiting for &s->(a|b) \\(0x[0-9a-f]+\\) held by")))
      << r.report;
  // ...and what lockcheck said earlier in the same execution.
  EXPECT_NE(r.report.find("lockcheck also reported, earlier in this execution:\n"
                          "======== lockcheck: lock-order-inversion"),
            std::string::npos)
      << r.report;
  EXPECT_FALSE(r.schedule_path.empty());
}

TEST_P(FailuresTest, ByDefaultTheLockOrderReportEndsTheFirstExecution) {
  const sched::RunResult r = RunScenario("abba", {{"variant", "classic"}}, "dfs");
  ASSERT_TRUE(r.failed);
  EXPECT_EQ(r.failure_kind, "lockcheck");
  EXPECT_NE(r.failure_line.find("lock-order-inversion on &s->a in thread"), std::string::npos)
      << r.failure_line;
  EXPECT_EQ(r.executions, 1u);  // no deadlock needed
}

TEST_P(FailuresTest, DeferredReportsFailAtTheEndOfAnExecutionThatOtherwisePasses) {
  const sched::RunResult r = RunScenario("abba", {{"variant", "classic"}}, "dfs", "defer");
  ASSERT_TRUE(r.failed);
  EXPECT_EQ(r.failure_kind, "lockcheck");
  EXPECT_EQ(r.executions, 1u);
}

TEST_P(FailuresTest, ADeadlockLockdepCannotSeeIsFoundBySearching) {
  // Both inner acquisitions use spin_lock_nested: lockdep is told the
  // nesting is ordered and stays silent; the schedule deadlocks anyway.
  const sched::RunResult r = RunScenario("abba", {{"variant", "nested"}}, "dfs");
  ASSERT_TRUE(r.failed) << r.output;
  EXPECT_EQ(r.failure_kind, "deadlock");
  EXPECT_EQ(r.report.find("lockcheck also reported"), std::string::npos);
  EXPECT_TRUE(std::regex_search(r.report, std::regex("wait-for cycle .*: thread [0-9]+ \"(ab|ba)\" "
                                                     "-> s_lock \\(0x[0-9a-f]+\\) -> thread")))
      << r.report;
  EXPECT_GT(r.executions, 1u);
  // The same run without the bug class: one lock order.
  const sched::RunResult ok = RunScenario("bitmap_alloc", {{"variant", "atomic"}}, "dfs");
  EXPECT_FALSE(ok.failed);
}

TEST_P(FailuresTest, ALivelockHitsTheStepBoundInEveryStrategy) {
  for (const char* strategy : {"random", "pct", "dfs"}) {
    SCOPED_TRACE(strategy);
    const sched::RunResult r =
        RunScenario("spin_wait", {{"variant", "lost"}}, strategy, "end", 500);
    ASSERT_TRUE(r.failed) << r.output;
    EXPECT_EQ(r.failure_kind, "step-bound");
    EXPECT_EQ(r.failure_line,
              "the execution did not end within 500 decisions (max_steps): a livelock, or a "
              "thread starves");
    EXPECT_EQ(r.last_steps, 500u);
    // The last decisions show the spinning thread.
    EXPECT_TRUE(std::regex_search(
        r.report, std::regex("499: thread [0-9]+ \"waiter\" at (yield|lock|unlock)")))
        << r.report;
    EXPECT_NE(r.report.find("\"setter\": ended"), std::string::npos) << r.report;
    EXPECT_EQ(r.executions, 1u);
  }
}

TEST_P(FailuresTest, TheSameSpinWaitEndsWhenTheFlagIsSet) {
  for (const char* strategy : {"random", "pct", "dfs"}) {
    SCOPED_TRACE(strategy);
    const sched::RunResult r = RunScenario("spin_wait", {{"variant", "set"}}, strategy, "end", 500);
    EXPECT_FALSE(r.failed) << r.output;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, FailuresTest, ::testing::Values("fiber", "baton"));

}  // namespace
