// program/controlled_test.cc: the engine under the controlled
// scheduler (program/controlled.h). Every run here is deterministic: the
// scheduler decides every interleaving from (flags, seed, schedule).
#include "program/controlled.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "sched/cli.h"
#include "sched/run.h"
#include "program/scenario_testing.h"

namespace flowcheck {
namespace program {
namespace {

std::string OutDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return std::string(d != nullptr ? d : "/tmp") + "/";
}

StressConfig Pct(uint64_t seed) {
  StressConfig c;
  c.sched = "pct";
  c.seed = seed;
  c.sched_executions = 20000;
  c.schedule_out = OutDir();
  return c;
}

// The kernel's flush of a woken head strands the next waiter: pct finds it
// (seed 89: in its 806th execution; on the kernel's text, --config=upstream, in
// its 25th) and the written file replays it. The seed is one that finds it
// early in both modes: the test's time is spent in every config it runs in.
TEST(Controlled, PctFindsTheKernelsFlushHazardAndTheFileReplaysIt) {
  StressConfig c = Pct(89);
  c.flush_handoff = false;
  const ControlledResult found = RunControlled(c, "");
  ASSERT_EQ(found.status, 1);
  EXPECT_EQ(found.marker, "invariant no-lost-wakeup");
  EXPECT_NE(found.detail.find("waits at the head of flow_queue"), std::string::npos)
      << found.detail;
  ASSERT_FALSE(found.schedule_path.empty());
  ASSERT_EQ(access(found.schedule_path.c_str(), R_OK), 0) << found.schedule_path;
  for (int i = 0; i < 3; ++i) {
    const ControlledResult replayed = RunControlled(StressConfig{}, found.schedule_path);
    EXPECT_EQ(replayed.status, 1);
    EXPECT_EQ(replayed.marker, found.marker);
    EXPECT_EQ(replayed.detail, found.detail);
    EXPECT_EQ(replayed.trace_hash, found.trace_hash);
    EXPECT_EQ(replayed.executions, 1u);
  }
}

// The engine's own wakeup hand-off after a flush (the default) closes the
// hazard: the same seed finds nothing in 1000 executions (without the
// hand-off it fails in its 806th), the oracle agreeing wherever it follows.
TEST(Controlled, WithTheFlushHandoffTheSameBudgetPasses) {
  StressConfig c = Pct(89);
  c.sched_executions = 1000;
  const ControlledResult r = RunControlled(c, "");
  EXPECT_EQ(r.status, 0) << r.marker << " " << r.detail;
  EXPECT_EQ(r.executions, 1000u);
  EXPECT_EQ(r.stats.quiescent_points, 1000u);  // every execution reached its end checks
  EXPECT_GT(r.stats.counters.at("setup_eagain"), 0u);
  EXPECT_GT(r.stats.counters.at("give_up"), 0u);
  // The oracle followed every execution from its start, and some to the end
  // (it leaves one where the order of effects is unknown).
  EXPECT_EQ(r.oracle_executions, 1000u);
  EXPECT_GT(r.oracle_comparisons, 1000u);
  EXPECT_GT(r.oracle_followed, 0u);
  EXPECT_FALSE(r.oracle_first_stop.empty());
}

// A large program that still makes progress is no livelock: the default
// step bound grows with the program's ops (this 40 x 64 program takes 10 000
// to 20 000 decisions an execution). With the old fixed bound of 10 000 the
// same run fails [step-bound].
TEST(Controlled, TheDefaultStepBoundGrowsWithTheProgram) {
  StressConfig c = Pct(3);
  c.sched = "random";
  c.threads = 40;
  c.sched_ops = 64;
  c.workers = 2;
  c.sched_executions = 2;
  EXPECT_EQ(MaxSteps(c), 10000 + 200 * (40 + 1) * 64);
  const ControlledResult r = RunControlled(c, "");
  EXPECT_EQ(r.status, 0) << r.marker << " " << r.detail;
  c.max_steps = 10000;
  EXPECT_EQ(MaxSteps(c), 10000);
  const ControlledResult bounded = RunControlled(c, "");
  EXPECT_EQ(bounded.status, 1);
  EXPECT_EQ(bounded.marker, "step-bound") << bounded.detail;
}

// --sched=dfs --sched_programs=N explores every schedule of programs 0..N-1
// (program p: the op lists of execution p), one after the other.
TEST(Controlled, DfsExploresEveryScheduleOfEachProgram) {
  StressConfig c = Pct(5);
  c.sched = "dfs";
  c.sched_executions = 0;
  c.threads = 2;
  c.sched_ops = 2;
  c.irq_thread = false;
  c.workers = 1;
  c.max_preemptions = 1;
  const ControlledResult one = RunControlled(c, "");
  ASSERT_EQ(one.status, 0) << one.marker << " " << one.detail;
  c.sched_programs = 3;
  const ControlledResult three = RunControlled(c, "");
  ASSERT_EQ(three.status, 0) << three.marker << " " << three.detail;
  EXPECT_GT(three.executions, one.executions);  // program 0's, then 1's and 2's
  EXPECT_EQ(RunControlled(c, "").executions, three.executions);
}

TEST(Controlled, RandomIsDeterministicPerSeed) {
  StressConfig c = Pct(7);
  c.sched = "random";
  c.sched_executions = 50;
  const ControlledResult a = RunControlled(c, "");
  const ControlledResult b = RunControlled(c, "");
  ASSERT_EQ(a.status, 0);
  EXPECT_EQ(a.trace_hash, b.trace_hash);
  EXPECT_EQ(a.stats.ops, b.stats.ops);
  c.seed = 8;
  EXPECT_NE(RunControlled(c, "").trace_hash, a.trace_hash);
}

// dfs over two threads, each: setup then clear of its own QP, both QPs on
// one context with one flow free (so one waits and a worker hands the flow
// on): the space within 1 preemption is finite and explored in full (274
// schedules; 2 preemptions give 4 742, 24 s under TSan).
sched::RunResult TwoByTwoDfs() {
  return RunStressDfs({{"threads", "2"}, {"qps_per_thread", "1"}, {"contexts", "1"},
                       {"workers", "1"}, {"irq_thread", "0"}, {"bare_per_thread", "0"},
                       {"sched_ops", "2"}, {"sched_free_flows", "1"}, {"seed", "1"},
                       {"ops.stress-0", "setup@0,release@0"},
                       {"ops.stress-1", "setup@0,release@0"}},
                      /*max_preemptions=*/1, /*verbosity=*/0, OutDir());
}

TEST(Controlled, DfsExhaustsTwoThreadsTimesTwoOpsWithTheSameCountEveryTime) {
  const sched::RunResult a = TwoByTwoDfs();
  EXPECT_FALSE(a.failed) << a.failure_kind << " " << a.failure_line << "\n" << a.report;
  EXPECT_TRUE(a.dfs_exhausted);
  EXPECT_GT(a.executions, 1u);
  EXPECT_NE(a.output.find("flowcheck: dfs: explored 1 program x " + std::to_string(a.executions) +
                          " schedules, space exhausted"),
            std::string::npos)
      << a.output;
  std::printf("dfs, 2 threads x (setup, release), 1 free flow, <= 1 preemption: %llu schedules\n",
              static_cast<unsigned long long>(a.executions));
  const sched::RunResult b = TwoByTwoDfs();
  EXPECT_EQ(b.executions, a.executions);
  EXPECT_TRUE(b.dfs_exhausted);
}

}  // namespace
}  // namespace program
}  // namespace flowcheck
