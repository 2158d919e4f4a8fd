// fuzz/sched_seed_search_main.cc: //fuzz:sched_seed_search re-derives the
// scheduling bytes of the sched_fuzz seeds that are named for an
// interleaving (fuzz/sched_seed_search.h), after decision points changed.
//
//   bazel run //fuzz:sched_seed_search [-- --max-stay=N]
//
// For each such seed: "ok" if its committed schedule still reaches its
// property, else the first schedule of the same shape that does, printed as
// the (stay, byte) pairs to paste into fuzz/sched_fuzz_seeds.cc.
// Exit 0 every seed reaches its property as committed; 1 some seed needs
// the printed schedule (or none was found); 2 wrong flags.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/sched_seed_search.h"
#include "fuzz/seeds.h"

namespace {

std::string Text(const flowcheck::fuzz::SchedulePairs& pairs) {
  std::string s = "{";
  for (size_t i = 0; i < pairs.size(); ++i) {
    s += (i ? ", {" : "{") + std::to_string(pairs[i].first) + ", " +
         std::to_string(pairs[i].second) + "}";
  }
  return s + "}";
}

}  // namespace

int main(int argc, char** argv) {
  int max_stay = 400;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--max-stay=", 0) == 0) {
      max_stay = std::atoi(a.c_str() + 11);
    } else {
      std::fprintf(stderr, "sched_seed_search: unknown argument %s\n"
                   "usage: sched_seed_search [--max-stay=N]\n", a.c_str());
      return 2;
    }
  }
  using namespace flowcheck::fuzz;
  const std::vector<Seed> seeds = Seeds();
  int stale = 0;
  for (const NamedProperty& np : SeedProperties()) {
    const Seed* seed = nullptr;
    for (const Seed& s : seeds) {
      if (s.program.format == Format::kSched && s.name == np.seed) seed = &s;
    }
    if (seed == nullptr) {
      std::printf("%s: no such sched_fuzz seed\n", np.seed);
      ++stale;
      continue;
    }
    const SchedulePairs shape = PairsOf(seed->program.schedule);
    const std::string why = np.property(seed->program);
    if (why.empty()) {
      std::printf("%s: ok, %s reaches it (%s)\n", np.seed, Text(shape).c_str(), np.what);
      continue;
    }
    ++stale;
    SchedulePairs found;
    uint64_t executions = 0;
    if (SearchSchedule(seed->program, shape, np.property, max_stay, &found, &executions)) {
      std::printf("%s: %s no longer reaches it (%s); use %s (%llu executions)\n", np.seed,
                  Text(shape).c_str(), why.c_str(), Text(found).c_str(),
                  static_cast<unsigned long long>(executions));
    } else {
      std::printf("%s: %s no longer reaches it (%s); no schedule of that shape with stays "
                  "up to %d does (%llu executions)\n",
                  np.seed, Text(shape).c_str(), why.c_str(), max_stay,
                  static_cast<unsigned long long>(executions));
    }
    std::fflush(stdout);
  }
  return stale == 0 ? 0 : 1;
}
