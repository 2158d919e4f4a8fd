// program/program_space_reduction_test.cc: the reduction ProgramSpace
// makes (program_space.h, Canonical) loses no behaviour: a left-out list runs
// exactly the schedules of the list it reduces to. The reduction rests on the
// op table's claims about what each op may leave a QP in, which the kernel's
// code decides, so this runs on every kernel text (upstream mode too).
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/strings.h"
#include "gtest/gtest.h"
#include "program/program_space.h"
#include "program/scenario_testing.h"
#include "sched/run.h"

namespace flowcheck {
namespace program {
namespace {

// The trace hashes of every schedule dfs (<= 1 preemption) runs of the
// program (stress-0: `list`, stress-1: setup@0, so that setups contend for
// the one free flow and may wait).
std::multiset<std::string> TraceHashes(const std::vector<ListedOp>& list) {
  const sched::RunResult r = RunStressDfs(
      {{"threads", "2"}, {"qps_per_thread", "1"}, {"contexts", "1"}, {"workers", "1"},
       {"irq_thread", "0"}, {"seed", "1"}, {"ops.stress-0", FormatOps(list)},
       {"ops.stress-1", "setup@0"}},
      /*max_preemptions=*/1, /*verbosity=*/1);
  EXPECT_FALSE(r.failed) << FormatOps(list) << ": " << r.failure_line;
  EXPECT_TRUE(r.dfs_exhausted);
  std::multiset<std::string> hashes;
  for (std::string_view line : flowcheck::StrSplit(r.output, '\n')) {
    if (flowcheck::ConsumePrefix(&line, "flowcheck: trace hash ")) hashes.insert(std::string(line));
  }
  EXPECT_EQ(hashes.size(), r.executions);
  return hashes;
}

TEST(ProgramSpace, ALeftOutListRunsExactlyTheSchedulesOfItsReduction) {
  StressConfig c = SmallDfsConfig(2);
  c.irq_thread = false;
  std::string error;
  const ProgramSpace space(c, &error);
  ASSERT_EQ(error, "");
  int compared = 0;
  // Many left-out lists share a reduction: each reduction is run once.
  std::map<std::string, std::multiset<std::string>> reduced_hashes;
  for (const auto& list : AllLists(space.alphabet(0), 2)) {
    const std::vector<ListedOp> reduced = space.Canonical(0, list);
    // A list that reduces to none is compared with its shortest non-empty
    // reduction's behaviour elsewhere: an empty list's thread is not spawned
    // at all (controlled.cc), so its schedules lack that thread's start and end.
    if (reduced == list || reduced.empty()) continue;
    auto it = reduced_hashes.find(FormatOps(reduced));
    if (it == reduced_hashes.end()) {
      it = reduced_hashes.emplace(FormatOps(reduced), TraceHashes(reduced)).first;
    }
    EXPECT_EQ(TraceHashes(list), it->second)
        << FormatOps(list) << " vs its reduction " << FormatOps(reduced);
    ++compared;
  }
  EXPECT_GT(compared, 50);
  std::printf("%d left-out lists of stress-0 (<= 2 ops) run the schedules of their reduction\n",
              compared);
}

}  // namespace
}  // namespace program
}  // namespace flowcheck
