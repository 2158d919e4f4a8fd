// program/stress_test.cc: the engine's free-running stress end to end, sized for `bazel test`
// (a few seconds each under TSan). Every run prints its seed and rerun
// command; a failure aborts with "flowcheck: FAIL [...]" and that command.
//
// The default test draws a fresh seed each run, so
//   bazel test --config=tsan //program:stress_test --runs_per_test=200
// is 200 different op sequences (docs/stress.md records the result).
#include "program/driver.h"

#include "gtest/gtest.h"

namespace flowcheck {
namespace program {
namespace {

uint64_t Count(const StressResult& r, const char* name) {
  auto it = r.counters.find(name);
  return it == r.counters.end() ? 0 : it->second;
}

// What every passing run must show: all ops done and each checked.
void ExpectCompleteRun(const StressResult& r, int threads, int64_t ops_per_thread) {
  const uint64_t op_thread_ops = static_cast<uint64_t>(threads) * ops_per_thread;
  EXPECT_GE(r.ops, op_thread_ops);
  EXPECT_GE(r.checks, r.ops) << "every op is followed by a check under exp_lock";
  EXPECT_GE(r.quiescent_points, static_cast<uint64_t>(ops_per_thread / r.config.quiescent_every));
}

// The default config: 4 threads x 2000 ops, 2 QPs each, the receive
// interrupt, 2 workers, flows squeezed by bare reservations; random seed.
TEST(StressTest, DefaultConfig) {
  StressConfig c;
  StressResult r = RunStress(c);
  ExpectCompleteRun(r, 4, 2000);
}

// The workload reaches the states the checks are about: QPs waiting on
// flow_queue and granted by a wakeup, bare reservations failing on a full
// mask. (Thousands of each in a run; zero would mean a broken op mix.)
TEST(StressTest, ReachesWaitsWakeupsAndAFullMask) {
  StressConfig c;
  c.seed = 20240601;
  c.bare_per_thread = 8;
  StressResult r = RunStress(c);
  ExpectCompleteRun(r, 4, 2000);
  EXPECT_GT(Count(r, "setup_eagain"), 0u);
  EXPECT_GT(Count(r, "granted_by_wakeup"), 0u);
  EXPECT_GT(Count(r, "bare_eagain_full"), 0u);
  EXPECT_GT(r.work_items, 0u);
}

TEST(StressTest, ThreeContextsMoreQpsMoreWorkers) {
  StressConfig c;
  c.seed = 7;
  c.contexts = 3;
  c.threads = 5;
  c.qps_per_thread = 4;
  c.workers = 3;
  c.ops_per_thread = 1500;
  StressResult r = RunStress(c);
  ExpectCompleteRun(r, 5, 1500);
}

TEST(StressTest, NoInterruptThreadNoYields) {
  StressConfig c;
  c.seed = 11;
  c.irq_thread = false;
  c.yield_probability = 0;
  StressResult r = RunStress(c);
  ExpectCompleteRun(r, 4, 2000);
  EXPECT_EQ(Count(r, "resync"), 0u);
  EXPECT_EQ(r.yields, 0u);
}

TEST(StressTest, SingleThreadHeavyYields) {
  StressConfig c;
  c.seed = 3;
  c.threads = 1;
  c.yield_probability = 0.5;
  c.quiescent_every = 100;
  StressResult r = RunStress(c);
  ExpectCompleteRun(r, 1, 2000);
  EXPECT_GT(r.yields, 0u);
}

}  // namespace
}  // namespace program
}  // namespace flowcheck
