// fuzz/sched_fuzz_test.cc: the 'S' format and its programs on the engine.
//  * decode/encode: any 'S' v2 bytes decode; Encode of the program gives
//    bytes that decode to the same scenario, lists and scheduling bytes;
//    version 1 is refused, naming why;
//  * random programs with random schedules on the unmutated model: never a
//    failure (no false positive: every check and the oracle hold under any
//    interleaving), never the scheduler's "nondeterminism" (the bytes
//    strategy is lenient), and the same result and trace hash when run again;
//  * an input is the program its stress schedule file holds: a found
//    failure's lists and bytes (SchedInput) run as an input fail the same way;
//  * the seeds pass; the flush hazard's seed fails under strict with the
//    no-lost-wakeup check (the kernel does not hand the wakeup on), and an
//    upstream divergence a seed reaches fails under strict, saying so.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fuzz/input_format.h"
#include "fuzz/sched_fuzz_format.h"
#include "fuzz/sched_program.h"
#include "fuzz/seeds.h"
#include "gtest/gtest.h"
#include "program/op_table.h"

namespace flowcheck {
namespace fuzz {
namespace {

std::vector<uint8_t> RandomInput(std::mt19937_64& rng) {
  std::vector<uint8_t> b = {'S', 2};
  const size_t n = 9 + rng() % 300;
  for (size_t i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(rng()));
  // Mostly real ops: record counts 0..16, op bytes inside the table, small A.
  for (size_t i = 6; i < sched_v2::kHeader && i < b.size(); ++i) b[i] %= 17;
  for (size_t i = sched_v2::kHeader; i + 2 < b.size(); i += sched_v2::kRecord) {
    b[i] = static_cast<uint8_t>(b[i] % (program::kNumListedOps + 1));
    b[i + 1] %= 4;
  }
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
    ASSERT_EQ(p.thread_ops.size(), static_cast<size_t>(p.shape.threads + (p.shape.irq ? 1 : 0)));
    ASSERT_EQ(p.num_qps, p.shape.threads * p.shape.qps_per_thread);
    size_t total = 0;
    for (int n : p.thread_ops) total += n;
    ASSERT_EQ(total, p.ops.size());
    const EncodeResult e = Encode(p);
    ASSERT_TRUE(e.ok()) << e.error;
    const DecodeResult back = Decode(e.bytes.data(), e.bytes.size());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back.program.ops, p.ops);
    EXPECT_EQ(back.program.thread_ops, p.thread_ops);
    EXPECT_EQ(back.program.schedule, p.schedule);
    EXPECT_TRUE(back.program.shape == p.shape);
    EXPECT_EQ(back.program.seed, p.seed);
  }
}

TEST(SchedFuzzFormat, VersionOneIsRefusedNamingWhy) {
  const std::vector<uint8_t> v1 = {'S', 1, 0, 0, 0, 0, 0, 0, 0};
  const DecodeResult d = Decode(v1.data(), v1.size());
  EXPECT_EQ(d.status, DecodeStatus::kUnknownVersion);
  EXPECT_NE(d.error.find("version 1"), std::string::npos) << d.error;
}

TEST(SchedFuzzRun, RandomProgramsPassDeterministically) {
  std::mt19937_64 rng(7);
  int ran_ops = 0;
  for (int i = 0; i < 300; ++i) {
    const std::vector<uint8_t> b = RandomInput(rng);
    const DecodeResult d = Decode(b.data(), b.size());
    ASSERT_TRUE(d.ok());
    const program::ControlledResult r = RunSched(d.program, /*strict=*/false, /*quiet=*/true);
    ASSERT_EQ(r.status, 0) << "input " << i << ": " << SchedFailureReport(r);
    const program::ControlledResult again = RunSched(d.program, false, true);
    EXPECT_EQ(again.trace_hash, r.trace_hash) << "input " << i;
    ran_ops += static_cast<int>(r.stats.ops);
  }
  EXPECT_GT(ran_ops, 1000);
}

const Program& SeedNamed(const std::string& name) {
  static const std::vector<Seed>* seeds = new std::vector<Seed>(SchedSeeds());
  for (const Seed& s : *seeds) {
    if (s.name == name) return s.program;
  }
  ADD_FAILURE() << "no sched_fuzz seed " << name;
  return seeds->front().program;
}

TEST(SchedFuzzSeeds, EveryOnePassesAndTheFlushHazardFailsStrict) {
  for (const Seed& s : SchedSeeds()) {
    const program::ControlledResult r = RunSched(s.program, /*strict=*/false, /*quiet=*/true);
    EXPECT_EQ(r.status, 0) << s.name << ": " << SchedFailureReport(r);
    EXPECT_GT(r.stats.ops, 0u) << s.name;
  }
  const program::ControlledResult strict =
      RunSched(SeedNamed("flush-strands-next-waiter"), /*strict=*/true, /*quiet=*/true);
  EXPECT_EQ(strict.status, 1) << "the flush seed no longer reaches the hazard: run `bazel run "
                                 "//fuzz:sched_seed_search` and paste its bytes";
  EXPECT_EQ(strict.marker, "invariant no-lost-wakeup") << strict.detail;
}

// --strict (the engine's StressConfig::strict): a known kernel hazard the
// run reaches is a note by default and a failure that says so under strict.
TEST(SchedFuzzSeeds, StrictFailsOnAnUpstreamDivergenceTheDefaultNotes) {
  const Program& p = SeedNamed("rarr-and-flush-interleaved");
  const program::ControlledResult plain = RunSched(p, /*strict=*/false, /*quiet=*/true);
  ASSERT_EQ(plain.status, 0) << SchedFailureReport(plain);
  EXPECT_EQ(plain.stats.divergences.count("W5"), 1u);
  const program::ControlledResult strict = RunSched(p, /*strict=*/true, /*quiet=*/true);
  EXPECT_EQ(strict.status, 1);
  EXPECT_EQ(strict.marker, "invariant W5");
  EXPECT_EQ(strict.detail.rfind("upstream divergence (strict): [R-1]", 0), 0u) << strict.detail;
}

TEST(SchedFuzzSeeds, TheSegmentSeedRunsTheRcvArraySide) {
  const program::ControlledResult r =
      RunSched(SeedNamed("segments-read-and-write"), false, true);
  ASSERT_EQ(r.status, 0) << SchedFailureReport(r);
  EXPECT_GT(r.stats.counters.at("segment_set_up"), 0u);
  EXPECT_GT(r.stats.counters.at("segment_cleared"), 0u);
}

// A failure found by a search over a program, turned into an input, fails
// the same way with the same trace hash: an input and the stress schedule
// file of its failure are one program.
TEST(SchedInputTest, AFoundFailureAsAnInputFailsTheSameWay) {
  Program seed = SeedNamed("flush-strands-next-waiter");
  program::StressConfig c = SchedConfig(seed, /*strict=*/true);
  c.sched = "dfs";
  c.max_preemptions = 2;
  const program::OpLists lists = SchedLists(seed);
  const program::ControlledResult found = program::RunProgram(c, lists, nullptr, /*quiet=*/true);
  ASSERT_EQ(found.status, 1);
  Program input;
  std::string error;
  ASSERT_TRUE(SchedInput(c, lists, found.bytes, &input, &error)) << error;
  const program::ControlledResult again = RunSched(input, /*strict=*/true, /*quiet=*/true);
  EXPECT_EQ(again.status, 1);
  EXPECT_EQ(again.marker, found.marker);
  EXPECT_EQ(again.detail, found.detail);
  EXPECT_EQ(again.trace_hash, found.trace_hash);
}

}  // namespace
}  // namespace fuzz
}  // namespace flowcheck
