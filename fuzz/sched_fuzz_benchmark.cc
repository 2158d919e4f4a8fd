// fuzz/sched_fuzz_benchmark.cc: sched_fuzz executions per second, the
// figure docs/fuzz.md records: decodes and runs N pseudo-random 'S' inputs
// (the generator of sched_fuzz_test: 2-4 threads, up to ~100 ops, up to
// ~400 scheduling bytes), each once as the fuzz target does, and prints
//   sched_fuzz: N executions in S s: E executions/s (mean decisions D; the
//   oracle compared to the end in K)
//   bazel run -c opt //fuzz:sched_fuzz_benchmark -- 2000
//   bazel run --config=fuzz //fuzz:sched_fuzz_benchmark -- 2000
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "fuzz/executor/sched_executor.h"
#include "fuzz/input_format.h"

int main(int argc, char** argv) {
  using namespace flowcheck::fuzz;
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  std::mt19937_64 rng(7);
  std::vector<Program> programs;
  for (int i = 0; i < n; ++i) {
    std::vector<uint8_t> b = {'S', 1};
    const size_t len = 7 + rng() % 400;
    for (size_t k = 0; k < len; ++k) b.push_back(static_cast<uint8_t>(rng()));
    for (size_t k = 9; k < b.size(); k += 4) b[k] = static_cast<uint8_t>(b[k] % 13);
    programs.push_back(Decode(b.data(), b.size()).program);
  }
  uint64_t decisions = 0;
  int oracle_to_end = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const Program& p : programs) {
    const SchedExecResult r = ExecuteSched(p, SchedExecOptions{});
    if (!r.ok) {
      std::fprintf(stderr, "%s", SchedFailureReport(r).c_str());
      return 1;
    }
    decisions += r.decisions;
    oracle_to_end += r.oracle_off.empty();
  }
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "sched_fuzz: %d executions in %.2f s: %.0f executions/s (mean decisions %.0f; the oracle "
      "compared to the end in %d)\n",
      n, s, n / s, static_cast<double>(decisions) / n, oracle_to_end);
  return 0;
}
