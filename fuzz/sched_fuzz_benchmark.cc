// fuzz/sched_fuzz_benchmark.cc: sched_fuzz executions per second, the
// figure docs/fuzz.md records: decodes and runs N pseudo-random 'S' inputs
// (the generator of sched_fuzz_test: 1-4 threads and rcv-irq, up to 16 ops
// each, up to ~250 scheduling bytes), each once as the fuzz target does,
// and prints
//   sched_fuzz: N executions in S s: E executions/s (mean decisions D; the
//   oracle followed K to the end)
//   bazel run -c opt //fuzz:sched_fuzz_benchmark -- 2000
//   bazel run --config=fuzz //fuzz:sched_fuzz_benchmark -- 2000
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "fuzz/input_format.h"
#include "fuzz/sched_fuzz_format.h"
#include "fuzz/sched_program.h"
#include "program/op_table.h"

int main(int argc, char** argv) {
  using namespace flowcheck::fuzz;
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  std::mt19937_64 rng(7);
  std::vector<Program> programs;
  for (int i = 0; i < n; ++i) {
    std::vector<uint8_t> b = {'S', 2};
    const size_t len = 9 + rng() % 300;
    for (size_t k = 0; k < len; ++k) b.push_back(static_cast<uint8_t>(rng()));
    for (size_t k = 6; k < sched_v2::kHeader && k < b.size(); ++k) b[k] %= 17;
    for (size_t k = sched_v2::kHeader; k + 2 < b.size(); k += sched_v2::kRecord) {
      b[k] = static_cast<uint8_t>(b[k] % flowcheck::program::kNumListedOps);
      b[k + 1] %= 4;
    }
    programs.push_back(Decode(b.data(), b.size()).program);
  }
  uint64_t decisions = 0, followed = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const Program& p : programs) {
    const flowcheck::program::ControlledResult r = RunSched(p, /*strict=*/false, /*quiet=*/true);
    if (r.status != 0) {
      std::fprintf(stderr, "%s", SchedFailureReport(r).c_str());
      return 1;
    }
    decisions += r.decisions;
    followed += r.oracle_followed;
  }
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "sched_fuzz: %d executions in %.2f s: %.0f executions/s (mean decisions %.0f; the oracle "
      "followed %llu to the end)\n",
      n, s, n / s, static_cast<double>(decisions) / n, static_cast<unsigned long long>(followed));
  return 0;
}
