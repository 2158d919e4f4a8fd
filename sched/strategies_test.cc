// The strategies on a real concurrency bug (bitmap_alloc, variant=split: a
// test-then-set that drops the lock in between): pct and dfs find it, the
// failure writes a schedule file first, and replaying that file reproduces
// the same failure and trace hash every time; the correct variant passes an
// exhaustive dfs. Also: same seed, same trace hashes; different seeds,
// different ones; and divergence from a schedule is reported.
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sched/cli.h"
#include "sched/run.h"
#include "sched/sched.h"
#include "sched/schedule_file.h"

namespace {

std::function<void()> ScenarioSetup(const std::string& name, const sched::ScenarioParams& given,
                                    sched::ScenarioParams* params) {
  const sched::ScenarioSpec* spec = sched::FindScenario(name);
  std::string error;
  EXPECT_NE(spec, nullptr) << name;
  EXPECT_TRUE(sched::ResolveParams(*spec, given, params, &error)) << error;
  std::function<void()> setup = spec->make(*params, &error);
  EXPECT_TRUE(setup) << error;
  return setup;
}

sched::Options Opts(const std::string& scenario, const sched::ScenarioParams& params,
                    const std::string& strategy) {
  sched::Options o;
  o.scenario = scenario;
  o.params = params;
  EXPECT_TRUE(::sched::Parse(strategy, &o.strategy));
  o.out = nullptr;
  o.verbosity = 1;
  o.schedule_out = ::testing::TempDir() + "/";
  return o;
}

std::vector<std::string> TraceHashLines(const std::string& output) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("flowcheck: trace hash ", 0) == 0) lines.push_back(line);
  }
  return lines;
}

class StrategiesTest : public ::testing::TestWithParam<std::string> {};

// Finds the bug with `strategy`, checks the failure output, then replays the
// written schedule 10 times.
void FindAndReplay(const std::string& strategy, const std::string& backend) {
  sched::ScenarioParams params;
  auto setup = ScenarioSetup("bitmap_alloc", {{"variant", "split"}}, &params);
  sched::Options o = Opts("bitmap_alloc", params, strategy);
  EXPECT_TRUE(::sched::Parse(backend, &o.backend));
  o.seed = 3;
  o.max_executions = strategy == "dfs" ? 0 : 1000;
  const sched::RunResult found = sched::Run(o, setup);
  ASSERT_TRUE(found.failed) << found.output;
  EXPECT_EQ(found.failure_kind, "check");
  EXPECT_NE(found.failure_line.find("both got bit 0"), std::string::npos) << found.failure_line;
  ASSERT_FALSE(found.schedule_path.empty()) << found.schedule_error;
  EXPECT_EQ(found.schedule_path[0], '/');
  // The schedule comes first, then the rerun line, then the report.
  const size_t written =
      found.output.find("flowcheck: schedule written: " + found.schedule_path + "\n");
  const size_t rerun =
      found.output.find("flowcheck: rerun: tools/reproduce.sh " + found.schedule_path + "\n");
  const size_t fail = found.output.find("flowcheck: FAIL [check] ");
  ASSERT_NE(written, std::string::npos) << found.output;
  ASSERT_NE(rerun, std::string::npos) << found.output;
  ASSERT_NE(fail, std::string::npos) << found.output;
  EXPECT_LT(written, rerun);
  EXPECT_LT(rerun, fail);
  const std::string hash_line =
      "flowcheck: trace hash " + sched::TraceHashHex(found.last_trace_hash);
  EXPECT_NE(found.output.find(hash_line, fail), std::string::npos);

  sched::Schedule s;
  std::string error;
  ASSERT_TRUE(sched::LoadScheduleFile(found.schedule_path, &s, &error)) << error;
  EXPECT_EQ(s.scenario, "bitmap_alloc");
  EXPECT_EQ(s.params, params);
  EXPECT_EQ(s.strategy, strategy);
  EXPECT_EQ(s.seed, 3u);
  EXPECT_EQ(s.execution, found.executions - 1);
  EXPECT_EQ(s.failure, "check");
  EXPECT_EQ(s.trace_hash, found.last_trace_hash);
  EXPECT_EQ(s.decisions.size(), found.last_steps);

  for (int i = 0; i < 10; ++i) {
    SCOPED_TRACE("replay " + std::to_string(i));
    sched::Options r = Opts("bitmap_alloc", params, "replay");
    r.replay = s;
    r.replay_path = found.schedule_path;
    EXPECT_TRUE(::sched::Parse(backend, &r.backend));
    const sched::RunResult replayed = sched::Run(r, setup);
    ASSERT_TRUE(replayed.failed) << replayed.output;
    EXPECT_EQ(replayed.failure_kind, "check") << replayed.output;
    EXPECT_EQ(replayed.failure_line, found.failure_line);
    EXPECT_EQ(replayed.last_trace_hash, found.last_trace_hash);
    EXPECT_EQ(replayed.executions, 1u);
    EXPECT_NE(replayed.output.find("flowcheck: replay: reproduced [check], trace hash " +
                                   sched::TraceHashHex(found.last_trace_hash)),
              std::string::npos)
        << replayed.output;
  }
}

TEST_P(StrategiesTest, PctFindsTheSplitTestThenSetAndItsScheduleReplays) {
  FindAndReplay("pct", GetParam());
}

TEST_P(StrategiesTest, DfsFindsTheSplitTestThenSetAndItsScheduleReplays) {
  FindAndReplay("dfs", GetParam());
}

TEST_P(StrategiesTest, RandomFindsTheSplitTestThenSetAndItsScheduleReplays) {
  FindAndReplay("random", GetParam());
}

TEST_P(StrategiesTest, TheAtomicVariantPassesAnExhaustiveDfs) {
  sched::ScenarioParams params;
  auto setup = ScenarioSetup("bitmap_alloc", {{"variant", "atomic"}}, &params);
  for (int bound : {2, -1}) {
    sched::Options o = Opts("bitmap_alloc", params, "dfs");
    EXPECT_TRUE(::sched::Parse(GetParam(), &o.backend));
    o.max_preemptions = bound;
    o.max_executions = 0;
    const sched::RunResult r = sched::Run(o, setup);
    EXPECT_FALSE(r.failed) << r.output;
    EXPECT_TRUE(r.dfs_exhausted) << r.output;
    // The split variant's failing schedule has one preemption: the space
    // with bound 2 is not trivial.
    EXPECT_GE(r.executions, 6u) << r.output;
  }
}

TEST_P(StrategiesTest, PctPrintsItsBoundForTheRunsNAndK) {
  sched::ScenarioParams params;
  auto setup = ScenarioSetup("bitmap_alloc", {{"variant", "atomic"}}, &params);
  sched::Options o = Opts("bitmap_alloc", params, "pct");
  EXPECT_TRUE(::sched::Parse(GetParam(), &o.backend));
  o.max_executions = 5;
  const sched::RunResult r = sched::Run(o, setup);
  ASSERT_FALSE(r.failed) << r.output;
  // The start, then per thread its lock, unlock and end, except the last
  // thread's end (nobody is left to choose): 6 decisions.
  EXPECT_EQ(r.last_steps, 6u);
  EXPECT_NE(r.output.find("flowcheck: pct: bound 1/(n k^(d-1)) = 1/(2*6^2) = 0.0139 per "
                          "execution (n=2 threads, k=6 steps, d=3)"),
            std::string::npos)
      << r.output;
}

TEST_P(StrategiesTest, TheSameSeedGivesTheSameTraceHashesAndOtherSeedsOtherOnes) {
  sched::ScenarioParams params;
  auto setup = ScenarioSetup("lock_ops", {{"threads", "2"}, {"ops", "4"}}, &params);
  for (const char* strategy : {"random", "pct"}) {
    SCOPED_TRACE(strategy);
    std::set<std::vector<std::string>> runs_by_seed;
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      std::vector<std::string> first;
      for (int repeat = 0; repeat < 2; ++repeat) {
        sched::Options o = Opts("lock_ops", params, strategy);
        EXPECT_TRUE(::sched::Parse(GetParam(), &o.backend));
        o.seed = seed;
        o.max_executions = 20;
        const sched::RunResult r = sched::Run(o, setup);
        ASSERT_FALSE(r.failed) << r.output;
        std::vector<std::string> hashes = TraceHashLines(r.output);
        ASSERT_EQ(hashes.size(), 20u);
        if (repeat == 0) {
          first = hashes;
          // Within a run, the executions differ too.
          EXPECT_GT(std::set<std::string>(hashes.begin(), hashes.end()).size(), 5u);
        } else {
          EXPECT_EQ(hashes, first) << "seed " << seed;
        }
      }
      runs_by_seed.insert(first);
    }
    EXPECT_EQ(runs_by_seed.size(), 5u);
  }
}

TEST_P(StrategiesTest, ABackendChangeKeepsTheTraceHash) {
  sched::ScenarioParams params;
  auto setup = ScenarioSetup("lock_ops", {}, &params);
  std::vector<std::string> hashes[2];
  for (int b = 0; b < 2; ++b) {
    sched::Options o = Opts("lock_ops", params, "random");
    EXPECT_TRUE(::sched::Parse(b == 0 ? "fiber" : "baton", &o.backend));
    o.max_executions = 10;
    hashes[b] = TraceHashLines(sched::Run(o, setup).output);
  }
  EXPECT_EQ(hashes[0], hashes[1]);
  EXPECT_EQ(hashes[0].size(), 10u);
}

TEST_P(StrategiesTest, AReplayThatDivergesIsUncontrolledNondeterminism) {
  sched::ScenarioParams params;
  auto setup = ScenarioSetup("bitmap_alloc", {{"variant", "split"}}, &params);
  sched::Options o = Opts("bitmap_alloc", params, "dfs");
  EXPECT_TRUE(::sched::Parse(GetParam(), &o.backend));
  o.max_executions = 0;
  const sched::RunResult found = sched::Run(o, setup);
  ASSERT_TRUE(found.failed);
  sched::Schedule s;
  std::string error;
  ASSERT_TRUE(sched::LoadScheduleFile(found.schedule_path, &s, &error)) << error;

  // 1. A scenario that is not a function of the schedule: state kept from
  // one run to the next changes what the second thread does.
  auto runs = std::make_shared<int>(0);
  auto flaky = [setup, runs] {
    setup();
    if ((*runs)++ > 0) sched::Spawn("extra", [] {});
  };
  sched::Options r = Opts("bitmap_alloc", params, "replay");
  EXPECT_TRUE(::sched::Parse(GetParam(), &r.backend));
  r.replay = s;
  r.replay_path = found.schedule_path;
  sched::RunResult first = sched::Run(r, flaky);  // runs == 0: as recorded
  EXPECT_EQ(first.failure_kind, "check") << first.output;
  sched::RunResult second = sched::Run(r, flaky);
  ASSERT_TRUE(second.failed);
  EXPECT_EQ(second.failure_kind, "nondeterminism") << second.output;
  EXPECT_NE(second.failure_line.find("uncontrolled nondeterminism: the schedule diverged at "
                                     "decision 0 (at decision 0 the runnable threads are {0,1,2}, "
                                     "the schedule recorded {0,1})"),
            std::string::npos)
      << second.failure_line;

  // 2. A schedule whose recorded trace hash does not match.
  sched::Schedule tampered = s;
  tampered.trace_hash ^= 1;
  r.replay = tampered;
  sched::RunResult third = sched::Run(r, setup);
  EXPECT_EQ(third.failure_kind, "nondeterminism");
  EXPECT_NE(third.failure_line.find("trace hash"), std::string::npos) << third.failure_line;

  // 3. Fewer decisions recorded than the execution needs.
  tampered = s;
  tampered.decisions.pop_back();
  r.replay = tampered;
  third = sched::Run(r, setup);
  EXPECT_EQ(third.failure_kind, "nondeterminism");
  EXPECT_NE(third.failure_line.find("but the schedule has only"), std::string::npos)
      << third.failure_line;

  // 4. A fix: the same scenario and parameters, but code that no longer
  // fails (the atomic variant stands for the patched code). On changed code
  // (posed by another code hash) the replay passes and says where it left
  // the schedule; on the code that recorded it, that is nondeterminism.
  sched::ScenarioParams unused;
  auto fixed = ScenarioSetup("bitmap_alloc", {{"variant", "atomic"}}, &unused);
  r.replay = s;
  r.code_hash = s.code ^ 1;
  sched::RunResult patched = sched::Run(r, fixed);
  EXPECT_FALSE(patched.failed) << patched.output;
  EXPECT_NE(patched.output.find("flowcheck: replay: does not reproduce: passed; the schedule "
                                "diverged at decision "),
            std::string::npos)
      << patched.output;
  EXPECT_EQ(patched.output.find("reproduced ["), std::string::npos) << patched.output;
  r.code_hash = 0;  // this executable: the one that recorded it
  ASSERT_EQ(s.code, sched::ExecutableHash());
  sched::RunResult same = sched::Run(r, fixed);
  EXPECT_EQ(same.failure_kind, "nondeterminism") << same.output;

  // 5. A schedule for another scenario is refused before running.
  r.replay = s;
  r.scenario = "lock_ops";
  third = sched::Run(r, setup);
  EXPECT_TRUE(third.usage_error);
  EXPECT_FALSE(third.failed);
}

TEST_P(StrategiesTest, AScheduleThatCannotBeWrittenSaysWhereAndWhy) {
  sched::ScenarioParams params;
  auto setup = ScenarioSetup("bitmap_alloc", {{"variant", "split"}}, &params);
  sched::Options o = Opts("bitmap_alloc", params, "dfs");
  EXPECT_TRUE(::sched::Parse(GetParam(), &o.backend));
  o.schedule_out = "/nonexistent-flowcheck-dir/sub/x.schedule";
  const sched::RunResult r = sched::Run(o, setup);
  ASSERT_TRUE(r.failed);
  EXPECT_TRUE(r.schedule_path.empty());
  EXPECT_NE(r.schedule_error.find("/nonexistent-flowcheck-dir/sub/x.schedule"), std::string::npos)
      << r.schedule_error;
  EXPECT_NE(r.schedule_error.find("No such file or directory"), std::string::npos)
      << r.schedule_error;
  EXPECT_NE(r.output.find("flowcheck: sched: cannot write"), std::string::npos) << r.output;
}

INSTANTIATE_TEST_SUITE_P(Backends, StrategiesTest, ::testing::Values("fiber", "baton"));

// Every typed option's name parses back to it; other names do not parse.
// A found failure's decisions as bytes (record_bytes): the bytes strategy
// fed them takes every decision again (the same failure and trace hash):
// how a schedule found by pct becomes a fuzz input.
TEST(RecordBytes, TheBytesOfAFailureReplayItUnderTheBytesStrategy) {
  sched::ScenarioParams params;
  auto setup = ScenarioSetup("bitmap_alloc", {{"variant", "split"}}, &params);
  sched::Options o = Opts("bitmap_alloc", params, "pct");
  o.seed = 3;
  o.record_bytes = true;
  o.write_schedule = false;
  const sched::RunResult found = sched::Run(o, setup);
  ASSERT_TRUE(found.failed) << found.output;
  ASSERT_EQ(found.bytes.size(), found.last_steps);
  EXPECT_GT(found.executions, 1u);  // not execution 0's schedule by chance
  sched::Options b = Opts("bitmap_alloc", params, "bytes");
  b.bytes = found.bytes;
  b.write_schedule = false;
  const sched::RunResult again = sched::Run(b, setup);
  ASSERT_TRUE(again.failed) << again.output;
  EXPECT_EQ(again.failure_line, found.failure_line);
  EXPECT_EQ(again.last_trace_hash, found.last_trace_hash);
  EXPECT_EQ(again.decisions, found.decisions);
}

TEST(OptionNames, ParseBackEveryName) {
  for (auto k : {sched::StrategyKind::kRandom, sched::StrategyKind::kPct, sched::StrategyKind::kDfs,
                 sched::StrategyKind::kReplay, sched::StrategyKind::kGuided,
                 sched::StrategyKind::kBytes}) {
    sched::StrategyKind back = sched::StrategyKind::kRandom;
    EXPECT_TRUE(sched::Parse(sched::Name(k), &back)) << sched::Name(k);
    EXPECT_EQ(back, k);
  }
  sched::Backend b = sched::Backend::kFiber;
  EXPECT_TRUE(sched::Parse("baton", &b));
  EXPECT_EQ(b, sched::Backend::kBaton);
  EXPECT_STREQ(sched::Name(b), "baton");
  sched::LockcheckReports r = sched::LockcheckReports::kEnd;
  EXPECT_TRUE(sched::Parse("record", &r));
  EXPECT_EQ(r, sched::LockcheckReports::kRecord);
  EXPECT_STREQ(sched::Name(sched::LockcheckReports::kDefer), "defer");
  sched::StrategyKind unchanged = sched::StrategyKind::kPct;
  EXPECT_FALSE(sched::Parse("PCT", &unchanged));
  EXPECT_FALSE(sched::Parse("", &b));
  EXPECT_EQ(unchanged, sched::StrategyKind::kPct);
}

}  // namespace
