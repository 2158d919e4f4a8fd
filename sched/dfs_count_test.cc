// The dfs strategy runs every schedule within the preemption bound exactly
// once: its schedule count and the set of interleavings it produced are
// compared with a brute-force enumeration written here from the definitions
// alone (no code shared with the strategy).
#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "lockcheck/spinlock.h"
#include "sched/run.h"
#include "sched/sched.h"

namespace {

enum Op { kPoint, kLock, kUnlock };            // kLock/kUnlock: the one shared lock
using Program = std::vector<std::vector<Op>>;  // ops per thread

// ---- Brute force ------------------------------------------------------------
// A decision happens when a thread reaches an op (before a lock, after an
// unlock, at a point) or its end. The chosen thread then runs to its next op:
// leaving a lock op acquires the lock; reaching an unlock op releases it. A
// thread at a lock op is runnable only while the lock is free. Switching away
// from a runnable thread is a preemption. A schedule is the sequence of
// chosen threads, from the first decision until nothing can run.
struct State {
  std::vector<int> pc;  // -1 not started; ops.size(): ended
  int holder = -1;
};

void Enumerate(const Program& p, const State& s, int current, int preemptions, int bound,
               uint64_t trace, std::set<uint64_t>* out) {
  const int n = static_cast<int>(p.size());
  std::vector<int> runnable;
  for (int t = 0; t < n; ++t) {
    const int pc = s.pc[t];
    const int size = static_cast<int>(p[t].size());
    if (pc == size) continue;
    if (pc >= 0 && p[t][pc] == kLock && s.holder >= 0) continue;
    runnable.push_back(t);
  }
  if (runnable.empty()) {
    out->insert(trace);
    return;
  }
  bool current_runnable = false;
  for (int t : runnable) current_runnable |= t == current;
  for (int t : runnable) {
    const int cost = current_runnable && t != current ? 1 : 0;
    if (bound >= 0 && preemptions + cost > bound) continue;
    State next = s;
    int& pc = next.pc[t];
    if (pc >= 0 && p[t][pc] == kLock) next.holder = t;
    ++pc;  // from -1 to the first op, or past the op it was at
    if (pc < static_cast<int>(p[t].size()) && p[t][pc] == kUnlock) next.holder = -1;
    Enumerate(p, next, t, preemptions + cost, bound, trace * 4 + static_cast<uint64_t>(t + 1), out);
  }
}

std::set<uint64_t> BruteForce(const Program& p, int bound) {
  std::set<uint64_t> traces;
  State s;
  s.pc.assign(p.size(), -1);
  Enumerate(p, s, -1, 0, bound, 0, &traces);
  return traces;
}

// ---- The same program under sched::Run, strategy dfs ------------------------
struct Shared {
  spinlock_t lock;
  std::atomic<uint64_t> trace{0};  // relaxed: one thread runs at a time
};

void Record(Shared* s, int t) {
  s->trace.store(s->trace.load(std::memory_order_relaxed) * 4 + static_cast<uint64_t>(t + 1),
                 std::memory_order_relaxed);
}

// The threads of `p`, each recording its steps into s->trace.
void SpawnProgram(const Program& p, const std::shared_ptr<Shared>& s) {
  for (int t = 0; t < static_cast<int>(p.size()); ++t) {
    sched::Spawn("t" + std::to_string(t), [s, t, ops = p[t]]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
      Record(s.get(), t);
      for (Op op : ops) {
        if (op == kPoint) sched::Point("op");
        if (op == kLock) spin_lock(&s->lock);
        if (op == kUnlock) spin_unlock(&s->lock);
        Record(s.get(), t);
      }
    });
  }
}

struct DfsRun {
  sched::RunResult result;
  std::set<uint64_t> traces;
  uint64_t duplicates = 0;
};

DfsRun RunDfs(const Program& p, int bound, const std::string& backend) {
  DfsRun run;
  sched::Options o;
  o.scenario = "dfs_count";
  o.strategy = ::sched::StrategyKind::kDfs;
  o.max_preemptions = bound;
  o.max_executions = 0;
  EXPECT_TRUE(::sched::Parse(backend, &o.backend));
  o.out = nullptr;
  o.verbosity = 0;
  run.result = sched::Run(o, [&p, &run] {
    auto s = std::make_shared<Shared>();
    spin_lock_init(&s->lock);
    SpawnProgram(p, s);
    sched::AtEnd([s, &run] {
      if (!run.traces.insert(s->trace.load(std::memory_order_relaxed)).second) ++run.duplicates;
    });
  });
  return run;
}

std::string ExpectedLine(size_t n) {
  return "flowcheck: dfs: explored 1 program x " + std::to_string(n) + " schedules, space exhausted";
}

class DfsCountTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DfsCountTest, TwoThreadsTwoPointsEveryBound) {
  const Program p = {{kPoint, kPoint}, {kPoint, kPoint}};
  // Unbounded: every interleaving of two runs of 3 segments, C(6,3).
  EXPECT_EQ(BruteForce(p, -1).size(), 20u);
  for (int bound : {0, 1, 2, 3, -1}) {
    SCOPED_TRACE("max_preemptions " + std::to_string(bound));
    const std::set<uint64_t> expected = BruteForce(p, bound);
    const DfsRun run = RunDfs(p, bound, GetParam());
    ASSERT_FALSE(run.result.failed) << run.result.output;
    EXPECT_EQ(run.result.executions, expected.size());
    EXPECT_NE(run.result.output.find(ExpectedLine(expected.size())), std::string::npos)
        << run.result.output;
    EXPECT_EQ(run.duplicates, 0u);
    EXPECT_EQ(run.traces, expected);
  }
}

TEST_P(DfsCountTest, TwoThreadsTwoLockOpsWithinTwoPreemptions) {
  // Each op: lock; point inside the critical section; unlock. A thread at
  // the lock while the other holds it cannot run.
  const Program p = {{kLock, kPoint, kUnlock, kLock, kPoint, kUnlock},
                     {kLock, kPoint, kUnlock, kLock, kPoint, kUnlock}};
  for (int bound : {2, -1}) {
    SCOPED_TRACE("max_preemptions " + std::to_string(bound));
    const std::set<uint64_t> expected = BruteForce(p, bound);
    const DfsRun run = RunDfs(p, bound, GetParam());
    ASSERT_FALSE(run.result.failed) << run.result.output;
    EXPECT_EQ(run.result.executions, expected.size());
    EXPECT_NE(run.result.output.find(ExpectedLine(expected.size())), std::string::npos)
        << run.result.output;
    EXPECT_EQ(run.duplicates, 0u);
    EXPECT_EQ(run.traces, expected);
  }
}

TEST_P(DfsCountTest, ThreeThreadsOnePointEach) {
  const Program p = {{kPoint}, {kPoint}, {kPoint}};
  for (int bound : {0, 1, -1}) {
    const std::set<uint64_t> expected = BruteForce(p, bound);
    const DfsRun run = RunDfs(p, bound, GetParam());
    ASSERT_FALSE(run.result.failed) << run.result.output;
    EXPECT_EQ(run.result.executions, expected.size()) << "bound " << bound;
    EXPECT_EQ(run.traces, expected) << "bound " << bound;
  }
}

// ---- Programs and shards -------------------------------------------------------
// Several programs in one run (Options::num_programs, sched::ProgramIndex),
// optionally one shard of it. A trace is tagged with its program.
struct ProgramsRun {
  sched::RunResult result;
  std::set<std::pair<uint64_t, uint64_t>> traces;  // (program, trace)
  uint64_t duplicates = 0;
};

ProgramsRun RunPrograms(const std::vector<Program>& programs, int bound, uint64_t shard_index,
                        uint64_t shard_count, double max_seconds = 0) {
  ProgramsRun run;
  sched::Options o;
  o.scenario = "dfs_programs";
  o.strategy = ::sched::StrategyKind::kDfs;
  o.max_preemptions = bound;
  o.max_executions = 0;
  o.max_seconds = max_seconds;
  o.num_programs = programs.size();
  o.shard_index = shard_index;
  o.shard_count = shard_count;
  o.out = nullptr;
  o.verbosity = 0;
  run.result = sched::Run(o, [&programs, &run] {
    const uint64_t program = sched::ProgramIndex();
    const Program& p = programs[program];
    auto s = std::make_shared<Shared>();
    spin_lock_init(&s->lock);
    SpawnProgram(p, s);
    sched::AtEnd([s, &run, program] {
      if (!run.traces.insert({program, s->trace.load(std::memory_order_relaxed)}).second) {
        ++run.duplicates;
      }
    });
  });
  return run;
}

const std::vector<Program> kPrograms = {
    {{kPoint, kPoint}, {kPoint, kPoint}},
    {{kLock, kPoint, kUnlock}, {kLock, kPoint, kUnlock}, {kPoint}},
    {{kPoint}},  // one thread: one schedule, no branch
};

TEST(DfsPrograms, EveryScheduleOfEveryProgramOnce) {
  std::set<std::pair<uint64_t, uint64_t>> expected;
  for (uint64_t p = 0; p < kPrograms.size(); ++p) {
    for (uint64_t t : BruteForce(kPrograms[p], 2)) expected.insert({p, t});
  }
  const ProgramsRun run = RunPrograms(kPrograms, 2, 0, 1);
  ASSERT_FALSE(run.result.failed) << run.result.output;
  EXPECT_TRUE(run.result.dfs_exhausted);
  EXPECT_EQ(run.duplicates, 0u);
  EXPECT_EQ(run.traces, expected);
  EXPECT_EQ(run.result.executions, expected.size());
  EXPECT_NE(run.result.output.find("flowcheck: dfs: explored 3 programs x " +
                                   std::to_string(expected.size()) +
                                   " schedules, space exhausted"),
            std::string::npos)
      << run.result.output;
}

// Bazel's test sharding: the shards' schedules are disjoint and together
// exactly the unsharded run's, for any shard count.
TEST(DfsPrograms, ShardsSplitTheSpaceExactly) {
  const ProgramsRun whole = RunPrograms(kPrograms, 2, 0, 1);
  ASSERT_FALSE(whole.result.failed);
  for (uint64_t count : {2u, 3u, 5u, 64u}) {
    SCOPED_TRACE("shards " + std::to_string(count));
    std::set<std::pair<uint64_t, uint64_t>> all;
    uint64_t executions = 0;
    for (uint64_t k = 0; k < count; ++k) {
      const ProgramsRun shard = RunPrograms(kPrograms, 2, k, count);
      ASSERT_FALSE(shard.result.failed) << shard.result.output;
      EXPECT_TRUE(shard.result.dfs_exhausted);
      EXPECT_EQ(shard.duplicates, 0u);
      EXPECT_EQ(shard.traces.size(), shard.result.executions);
      for (const auto& trace : shard.traces) {
        EXPECT_TRUE(all.insert(trace).second) << "a schedule ran in two shards";
      }
      executions += shard.result.executions;
      EXPECT_NE(shard.result.output.find("(shard " + std::to_string(k) + " of " +
                                         std::to_string(count) + "), space exhausted"),
                std::string::npos)
          << shard.result.output;
    }
    EXPECT_EQ(all, whole.traces);
    EXPECT_EQ(executions, whole.result.executions);
  }
}

TEST(DfsPrograms, ATimeLimitSaysSo) {
  const ProgramsRun run = RunPrograms(kPrograms, 2, 0, 1, /*max_seconds=*/1e-9);
  EXPECT_FALSE(run.result.dfs_exhausted);
  EXPECT_NE(run.result.output.find("flowcheck: dfs: explored 1 program x 0 schedules, stopped by "
                                   "the time limit in program 0"),
            std::string::npos)
      << run.result.output;
}

INSTANTIATE_TEST_SUITE_P(Backends, DfsCountTest, ::testing::Values("fiber", "baton"));

}  // namespace
