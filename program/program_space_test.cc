// program/program_space_test.cc: the programs dfs explores with
// --sched_program_ops: each once, smallest first, every list reduced to one
// in the space, a space too large refused. Nothing here runs a program
// (program_space_reduction_test.cc does), so upstream mode skips it.
#include "program/program_space.h"

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "common/strings.h"
#include "gtest/gtest.h"
#include "program/scenario_testing.h"

namespace flowcheck {
namespace program {
namespace {

StressConfig Small(int ops) { return SmallDfsConfig(ops); }

int Ops(const OpLists& program) {
  int n = 0;
  for (const auto& list : program) n += static_cast<int>(list.size());
  return n;
}

// A list as a short byte string: a cheap key for the 200 000 programs below
// (FormatOps for each was most of this test's time under TSan).
std::string Key(const std::vector<ListedOp>& list) {
  std::string key;
  for (const ListedOp& op : list) {
    key += static_cast<char>(op.kind);
    key += static_cast<char>(op.a);
    key += static_cast<char>(op.b);
  }
  return key;
}

TEST(ProgramSpace, HoldsEveryProgramOnceSmallestFirst) {
  std::string error;
  const ProgramSpace space(Small(2), &error);
  ASSERT_EQ(error, "");
  // Each participant's lists: none the reduction leaves out, none twice.
  std::vector<std::set<std::string>> kept(3);
  for (int i = 0; i < 3; ++i) {
    for (const auto& list : space.Lists(i)) {
      EXPECT_LE(list.size(), 2u);
      EXPECT_EQ(space.Canonical(i, list), list)
          << "participant " << i << " holds a list the reduction leaves out: " << FormatOps(list);
      EXPECT_TRUE(kept[i].insert(Key(list)).second) << FormatOps(list) << " twice";
    }
  }
  // Every program is a product of those lists, once, smallest first.
  std::set<std::string> seen;
  std::vector<std::set<std::string>> lists(3);
  int last_ops = 0;
  for (uint64_t p = 0; p < space.size(); ++p) {
    const OpLists program = space.Program(p);
    ASSERT_EQ(program.size(), 3u);  // stress-0, stress-1, rcv-irq
    EXPECT_GE(Ops(program), last_ops) << "program " << p;
    last_ops = Ops(program);
    std::string key;
    for (size_t i = 0; i < program.size(); ++i) {
      const std::string list = Key(program[i]);
      ASSERT_TRUE(kept[i].count(list)) << "program " << p << ": " << FormatOps(program[i])
                                       << " is none of participant " << i << "'s lists";
      lists[i].insert(list);
      key += list + ";";
    }
    EXPECT_TRUE(seen.insert(key).second) << "program " << p << " twice";
  }
  EXPECT_EQ(last_ops, 6);
  // Every combination of the lists is there: the space is their product.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(lists[i].size(), space.Lists(i).size());
  EXPECT_EQ(space.size(), lists[0].size() * lists[1].size() * lists[2].size());
  EXPECT_EQ(space.Program(0), OpLists(3));  // the empty program first
  std::printf("%s\n", space.Describe().c_str());
}

TEST(ProgramSpace, EveryListOfTheAlphabetReducesToOneInTheSpace) {
  std::string error;
  const ProgramSpace space(Small(3), &error);
  ASSERT_EQ(error, "");
  for (int i = 0; i < 3; ++i) {
    std::set<std::string> kept;
    for (const auto& list : space.Lists(i)) kept.insert(FormatOps(list));
    size_t left_out = 0;
    for (const auto& list : AllLists(space.alphabet(i), 3)) {
      const std::vector<ListedOp> reduced = space.Canonical(i, list);
      left_out += reduced != list;
      EXPECT_TRUE(kept.count(FormatOps(reduced)))
          << FormatOps(list) << " reduces to " << FormatOps(reduced) << ", not in the space";
    }
    EXPECT_GT(left_out, 0u);
    std::printf("participant %d: %zu lists, %zu left out by the reduction\n", i,
                AllLists(space.alphabet(i), 3).size(), left_out);
  }
}

TEST(ProgramSpace, TooLargeASpaceIsRefused) {
  StressConfig c = Small(3);
  c.threads = 8;
  std::string error;
  const ProgramSpace programs(c, &error);
  EXPECT_NE(error.find("more than 2^40 programs"), std::string::npos) << error;
  EXPECT_EQ(programs.size(), 0u);
  c = Small(6);
  c.qps_per_thread = 4;
  error.clear();
  const ProgramSpace lists(c, &error);
  EXPECT_EQ(error, "--sched_program_ops=6 gives stress-0 more than 2^20 op lists: lower it");
  EXPECT_EQ(lists.size(), 0u);
  // More QP slots than its per-slot state holds: refused, not overrun.
  c = Small(1);
  c.qps_per_thread = kMaxQpsPerThread + 1;
  error.clear();
  const ProgramSpace slots(c, &error);
  EXPECT_EQ(error, "--qps_per_thread must be in 1..64");
  EXPECT_EQ(slots.size(), 0u);
}

}  // namespace
}  // namespace program
}  // namespace flowcheck
