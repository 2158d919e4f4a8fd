// fuzz/sched_fuzz_test.cc: the 'S' format and the concurrent executor.
//  * decode/encode: any 'S' bytes decode; Encode of the program gives bytes
//    that decode to the same threads, ops and scheduling bytes;
//  * random programs with random schedules on the unmutated model: never a
//    failure (no false positive: every check holds under any interleaving),
//    never the scheduler's "nondeterminism" (the bytes strategy is lenient),
//    and the same result, events and trace hash when run again;
//  * the flush hazard seed: a hazard note by default, a failure with strict
//    (the no-lost-wakeup check is live, and gated like the other hazards);
//  * the seeds reach what they are named for (the FIFO hand-off's order, a
//    thread waiting for exp_lock while another holds it).
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fuzz/executor/sched_executor.h"
#include "fuzz/input_format.h"
#include "fuzz/sched_seed_search.h"
#include "fuzz/seeds.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace fuzz {
namespace {

std::vector<uint8_t> RandomInput(std::mt19937_64& rng) {
  std::vector<uint8_t> b = {'S', 1};
  const size_t n = 7 + rng() % 400;
  for (size_t i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(rng()));
  // Mostly real ops: low opcodes, QPs 0/1; record counts 0..32.
  for (size_t i = 9; i < b.size(); i += 4) b[i] = static_cast<uint8_t>(b[i] % 13);
  return b;
}

TEST(SchedFuzzFormat, EncodeOfADecodedProgramDecodesToIt) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 2000; ++i) {
    const std::vector<uint8_t> b = RandomInput(rng);
    const DecodeResult d = Decode(b.data(), b.size());
    ASSERT_TRUE(d.ok()) << d.error;
    const Program& p = d.program;
    ASSERT_EQ(p.format, Format::kSched);
    ASSERT_GE(p.thread_ops.size(), 2u);
    ASSERT_LE(p.thread_ops.size(), 4u);
    ASSERT_EQ(p.num_qps, static_cast<int>(2 * p.thread_ops.size()));
    size_t first = 0;
    for (size_t t = 0; t < p.thread_ops.size(); ++t) {
      for (int k = 0; k < p.thread_ops[t]; ++k) {
        const int qp = p.ops[first + k].qp;
        ASSERT_TRUE(qp == static_cast<int>(2 * t) || qp == static_cast<int>(2 * t + 1)) << qp;
      }
      first += p.thread_ops[t];
    }
    ASSERT_EQ(first, p.ops.size());
    const EncodeResult e = Encode(p);
    ASSERT_TRUE(e.ok()) << e.error;
    const DecodeResult back = Decode(e.bytes.data(), e.bytes.size());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back.program.ops, p.ops);
    EXPECT_EQ(back.program.thread_ops, p.thread_ops);
    EXPECT_EQ(back.program.schedule, p.schedule);
    EXPECT_EQ(back.program.seed, p.seed);
  }
}

TEST(SchedFuzzFormat, EncodeRefusesWhatTheHeaderCannotHold) {
  Program p;
  p.format = Format::kSched;
  p.num_qps = 10;
  p.thread_ops = {0, 0, 0, 0, 0};  // five threads
  EXPECT_FALSE(Encode(p).ok());
  p.num_qps = 4;
  p.thread_ops = {1, 0};
  p.ops = {MakeOp(FlowOp::kSetup, 0, 3, 0)};  // thread 0 names qp#3 (thread 1's)
  EXPECT_FALSE(Encode(p).ok());
}

TEST(SchedExecutor, RandomInterleavingsPassAndRepeat) {
  std::mt19937_64 rng(7);
  int with_oracle = 0;
  for (int i = 0; i < 300; ++i) {
    const std::vector<uint8_t> b = RandomInput(rng);
    const DecodeResult d = Decode(b.data(), b.size());
    ASSERT_TRUE(d.ok());
    SchedExecOptions o;
    o.trace = true;
    const SchedExecResult r1 = ExecuteSched(d.program, o);
    ASSERT_TRUE(r1.ok) << "input " << i << ": " << SchedFailureReport(r1);
    const SchedExecResult r2 = ExecuteSched(d.program, o);
    EXPECT_EQ(r1.trace_hash, r2.trace_hash) << "input " << i;
    EXPECT_EQ(r1.events, r2.events) << "input " << i;
    EXPECT_EQ(r1.oracle_checks, r2.oracle_checks);
    if (r1.oracle_checks > 0) ++with_oracle;
  }
  EXPECT_GT(with_oracle, 100) << "the oracle compared in too few executions";
}

const Program& SeedProgram(const std::string& name) {
  static const std::vector<Seed>* seeds = new std::vector<Seed>(Seeds());
  for (const Seed& s : *seeds) {
    if (s.program.format == Format::kSched && s.name == name) return s.program;
  }
  ADD_FAILURE() << "no sched_fuzz seed " << name;
  std::abort();
}

// The properties are fuzz/sched_seed_search.cc's (the same ones
// `bazel run //fuzz:sched_seed_search` re-derives the schedules with).
std::string Property(const std::string& seed) {
  for (const NamedProperty& np : SeedProperties()) {
    if (np.seed == seed) return np.property(SeedProgram(seed));
  }
  return "no property for " + seed;
}

TEST(SchedExecutor, FlushHazardIsANoteByDefaultAndAFailureWhenStrict) {
  EXPECT_EQ(Property("flush-strands-next-waiter"), "");
  SchedExecOptions o;
  o.strict = true;
  const SchedExecResult strict = ExecuteSched(SeedProgram("flush-strands-next-waiter"), o);
  ASSERT_FALSE(strict.ok);
  EXPECT_EQ(strict.kind, "hazard flush-strands-waiter");
  // The pooled model was dropped after the failure: the next program runs.
  EXPECT_TRUE(ExecuteSched(SeedProgram("fifo-handoff-across-threads"), {}).ok);
}

TEST(SchedExecutor, TheFifoHandoffSeedReachesItsInterleaving) {
  // t2's two setups wait between t1's setup and t1's clear; the oracle
  // compares to the end.
  EXPECT_EQ(Property("fifo-handoff-across-threads"), "");
}

TEST(SchedExecutor, TheContentionSeedHasAThreadWaitForExpLock) {
  // t1 begins its reserve (and reaches exp_lock) while t0 is inside its
  // section; t1's section comes only after t0 left it.
  EXPECT_EQ(Property("exp-lock-contention"), "");
}

TEST(SchedExecutor, TheTwoSetupsSeedOverlapsTheSecondSetups) {
  // t1's second setup reaches exp_lock while t0 holds it inside its second
  // setup (the window the split test-then-set mutant opens).
  EXPECT_EQ(Property("two-setups-prefer-one-flow"), "");
}

// The search finds a schedule when the committed one is shifted off: from
// the contention seed's ops with no preemption at all (which does not reach
// it), the search over its shape gives back a schedule that does.
TEST(SchedSeedSearch, FindsASchedulePastAShiftedOne) {
  Program p = SeedProgram("exp-lock-contention");
  const SchedulePairs shape = PairsOf(p.schedule);
  ASSERT_EQ(shape.size(), 1u);
  p.schedule.clear();
  const NamedProperty* np = nullptr;
  for (const NamedProperty& x : SeedProperties()) {
    if (std::string(x.seed) == "exp-lock-contention") np = &x;
  }
  ASSERT_NE(np, nullptr);
  EXPECT_NE(np->property(p), "");  // no preemption: t1 never waits
  SchedulePairs found;
  uint64_t executions = 0;
  ASSERT_TRUE(SearchSchedule(p, shape, np->property, 400, &found, &executions));
  EXPECT_EQ(found, shape);  // the committed one is the first that reaches it
  p.schedule = Expand(found);
  EXPECT_EQ(np->property(p), "");
}

TEST(SchedSeedSearch, PairsOfInvertsExpand) {
  const SchedulePairs pairs = {{3, 1}, {0, 2}, {12, 1}};
  EXPECT_EQ(PairsOf(Expand(pairs)), pairs);
  EXPECT_EQ(PairsOf({0, 0, 1, 0, 0}), (SchedulePairs{{2, 1}}));
}

}  // namespace
}  // namespace fuzz
}  // namespace flowcheck
