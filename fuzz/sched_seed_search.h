// fuzz/sched_seed_search.h: what some sched_fuzz seeds are named for, as
// predicates on an execution, and the search that re-derives a seed's
// scheduling bytes when decision points are added to or removed from core.
//
// A seed's schedule is positional (one byte per decision point, read by
// sched/bytes_strategy.cc), so a new decision point shifts which
// interleaving its bytes reach. SearchSchedule keeps the seed's ops and the
// bytes it switches with, and tries the stay counts in order until the
// seed's property holds again:
//
//   bazel run //fuzz:sched_seed_search     # prints the schedules to paste
//
// (fuzz/sched_fuzz_seeds.cc; then `bazel run //fuzz:make_seeds`).
// sched_fuzz_test asserts the same properties on the committed seeds.
#ifndef FLOWCHECK_FUZZ_SCHED_SEED_SEARCH_H_
#define FLOWCHECK_FUZZ_SCHED_SEED_SEARCH_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {

// A seed's schedule as (decisions to stay, then one nonzero byte) pairs;
// the inverse of the expansion in sched_fuzz_seeds.cc. Trailing zeros
// (stays past the last switch) are dropped: past the bytes nobody is
// preempted anyway.
using SchedulePairs = std::vector<std::pair<int, uint8_t>>;
SchedulePairs PairsOf(const std::vector<uint8_t>& schedule);
std::vector<uint8_t> Expand(const SchedulePairs& pairs);

// Returns "" when the program (ops and schedule) reaches what the seed
// `name` is named for, else why not. Runs the program (twice for the flush
// hazard: by default and strict).
using SeedProperty = std::string (*)(const Program& p);
struct NamedProperty {
  const char* seed;  // the sched_fuzz seed's name (seeds.h)
  SeedProperty property;
  const char* what;  // one line: the interleaving it is named for
};
const std::vector<NamedProperty>& SeedProperties();

// The first stay counts (pair 0's ascending, then pair 1's, ...; each in
// [0, max_stay]) that, with `shape`'s bytes, make `property` hold for
// p's ops. False if none does.
bool SearchSchedule(Program p, const SchedulePairs& shape, SeedProperty property, int max_stay,
                    SchedulePairs* found, uint64_t* executions);

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_SCHED_SEED_SEARCH_H_
