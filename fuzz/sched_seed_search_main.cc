// fuzz/sched_fuzz_seeds.cc's scheduling bytes for a seed named for a
// failure, re-derived after decision points changed: //fuzz:sched_seed_search
// runs dfs over the seed's program for the first schedule that fails with
// the marker, and prints its decisions as the (stay, byte) pairs to paste.
//
//   bazel run //fuzz:sched_seed_search        # the flush hazard, --strict
//   bazel run //fuzz:sched_seed_search -- --seed=NAME --marker='invariant F1'
//
// The second form searches a seed meant for a bug injected into core/ (run
// it in a tree with the bug: two-setups-prefer-one-flow and the catalog's
// reserve-split-test-then-set). Exit 0 the committed bytes still fail with
// the marker; 1 they do not (the pairs to paste are printed) or no schedule
// within 2 preemptions does; 2 a bad argument.
//
// Bytes are positional: a text whose functions take other locks (the
// hfi2-shaped one) reaches other interleavings with them. For bytes that
// hold on several texts, --candidates=N prints the failing schedules pct
// finds with seeds 1..N (one hex line each), and --try=FILE prints those of
// FILE's lines that fail in this build: run --try in each build
// (--config=upstream, --config=upstream_hfi2) and keep a line all print.
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "fuzz/sched_program.h"
#include "fuzz/seeds.h"

namespace {


std::string Pairs(const std::vector<uint8_t>& bytes) {
  std::string s = "{";
  int stay = 0;
  bool first = true;
  for (uint8_t b : bytes) {
    if (b == 0) {
      ++stay;
      continue;
    }
    s += (first ? "{" : ", {") + std::to_string(stay) + ", " + std::to_string(b) + "}";
    first = false;
    stay = 0;
  }
  return s + "}";
}

std::string Hex(const std::vector<uint8_t>& bytes) {
  std::string s;
  for (uint8_t b : bytes) s += "0123456789abcdef"[b >> 4], s += "0123456789abcdef"[b & 15];
  return s;
}

std::vector<uint8_t> Unhex(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace flowcheck;
  std::string seed = "flush-strands-next-waiter", marker = "invariant no-lost-wakeup";
  bool strict = true;
  int candidates = 0;
  std::string try_file;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--seed=", 0) == 0) {
      seed = a.substr(7);
      strict = false;
    } else if (a.rfind("--marker=", 0) == 0) {
      marker = a.substr(9);
    } else if (a == "--strict") {
      strict = true;
    } else if (a.rfind("--candidates=", 0) == 0 && SimpleAtoi(a.substr(13), &candidates) &&
               candidates > 0) {
    } else if (a.rfind("--try=", 0) == 0) {
      try_file = a.substr(6);
    } else {
      std::fprintf(stderr, "sched_seed_search: bad argument %s (--seed=NAME --marker=MARKER "
                           "[--strict] [--candidates=N] [--try=FILE])\n", a.c_str());
      return 2;
    }
  }
  const char* kSeed = seed.c_str();
  const char* kMarker = marker.c_str();
  for (const fuzz::Seed& s : fuzz::SchedSeeds()) {
    if (s.name != seed) continue;
    if (candidates > 0) {
      program::StressConfig c = fuzz::SchedConfig(s.program, strict);
      c.sched = "pct";
      c.sched_executions = 2000;
      for (int k = 1; k <= candidates; ++k) {
        const program::ControlledResult found = program::RunProgram(
            c, fuzz::SchedLists(s.program), nullptr, true, static_cast<uint64_t>(k));
        if (found.status == 1 && found.marker == marker) std::printf("%s\n", Hex(found.bytes).c_str());
      }
      return 0;
    }
    if (!try_file.empty()) {
      std::ifstream in(try_file);
      for (std::string line; std::getline(in, line);) {
        fuzz::Program p = s.program;
        p.schedule = Unhex(line);
        const program::ControlledResult r = fuzz::RunSched(p, strict, true);
        if (r.status == 1 && r.marker == marker) std::printf("%s\n", line.c_str());
      }
      return 0;
    }
    const program::ControlledResult now = fuzz::RunSched(s.program, strict, true);
    if (now.status == 1 && now.marker == marker) {
      std::printf("ok: %s still fails%s with [%s]\n", kSeed, strict ? " strict" : "", kMarker);
      return 0;
    }
    program::StressConfig c = fuzz::SchedConfig(s.program, strict);
    c.sched = "dfs";
    c.max_preemptions = 2;
    const program::ControlledResult found =
        program::RunProgram(c, fuzz::SchedLists(s.program), nullptr, /*quiet=*/true);
    if (found.status != 1 || found.marker != marker) {
      std::printf("%s: no schedule within 2 preemptions fails [%s] (%llu executions)\n", kSeed,
                  kMarker, static_cast<unsigned long long>(found.executions));
      return 1;
    }
    std::printf("%s: paste this schedule into fuzz/sched_fuzz_seeds.cc (dfs execution %llu):\n"
                "  %s\n",
                kSeed, static_cast<unsigned long long>(found.executions),
                Pairs(found.bytes).c_str());
    return 1;
  }
  std::printf("no sched_fuzz seed %s\n", kSeed);
  return 1;
}
