// sched/sched_benchmark.cc: how fast controlled executions are (a benchmark,
// not a test: it prints figures and ratios measured in one run).
//
//   bazel run -c opt //sched:sched_benchmark          (or sched/benchmark.sh)
//
// 1. The benchmark scenario (lock_ops: 2 threads x 4 lock/increment/unlock
//    of one lockcheck spinlock), random strategy, in executions/s with each
//    backend, and the same work run uncontrolled in the same process (two
//    std::threads per execution, created and joined, as a plain stress
//    iteration would): the ratio says what control costs.
// 2. The same with 4 threads x 2 ops, for the fiber/baton comparison.
// 3. One hand-off between two logical threads (a Yield ping-pong), per
//    backend, and lockcheck::ResetForTesting (run before every execution).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "common/sanitizers.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/spinlock.h"
#include "sched/run.h"
#include "sched/sched.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

std::string CpuModel() {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

// "tsan", "asan" or "default" (common/sanitizers.h).
const char* Build() {
  const std::string s = flowcheck::BuildSanitizer();
  return s == "tsan" ? "tsan" : s == "asan" ? "asan" : "default";
}

struct Counter {
  spinlock_t lock;
  long value ABSL_GUARDED_BY(lock) = 0;
};

void Work(Counter* c, int ops) {
  for (int k = 0; k < ops; ++k) {
    spin_lock(&c->lock);
    ++c->value;
    spin_unlock(&c->lock);
  }
}

// Controlled executions per second over `executions` executions.
double Controlled(const std::string& backend, int threads, int ops, uint64_t executions,
                  uint64_t* steps) {
  sched::Options o;
  o.scenario = "lock_ops";
  o.strategy = sched::StrategyKind::kRandom;
  o.max_executions = executions;
  sched::Parse(backend, &o.backend);  // "fiber" or "baton", from main
  o.out = nullptr;
  o.verbosity = 0;
  const auto start = Clock::now();
  const sched::RunResult r = sched::Run(o, [threads, ops] {
    auto c = std::make_shared<Counter>();
    spin_lock_init(&c->lock);
    for (int i = 0; i < threads; ++i) {
      sched::Spawn("worker-" + std::to_string(i), [c, ops] { Work(c.get(), ops); });
    }
  });
  const double s = Seconds(start);
  if (r.failed) {
    std::fprintf(stderr, "benchmark scenario failed:\n%s\n", r.output.c_str());
    std::exit(1);
  }
  *steps = r.last_steps;
  return static_cast<double>(r.executions) / s;
}

double Uncontrolled(int threads, int ops, uint64_t executions) {
  const auto start = Clock::now();
  for (uint64_t e = 0; e < executions; ++e) {
    auto c = std::make_shared<Counter>();
    spin_lock_init(&c->lock);
    std::vector<std::thread> ts;
    for (int i = 0; i < threads; ++i) ts.emplace_back([c, ops] { Work(c.get(), ops); });
    for (auto& t : ts) t.join();
  }
  return static_cast<double>(executions) / Seconds(start);
}

// Nanoseconds per hand-off: two threads that yield to each other.
double HandOffNs(const std::string& backend, int yields) {
  sched::Options o;
  o.scenario = "ping_pong";
  o.strategy = sched::StrategyKind::kRandom;
  o.max_executions = 1;
  o.max_steps = 4 * static_cast<uint64_t>(yields) + 100;
  sched::Parse(backend, &o.backend);  // "fiber" or "baton", from main
  o.out = nullptr;
  o.verbosity = 0;
  const auto start = Clock::now();
  const sched::RunResult r = sched::Run(o, [yields] {
    for (int t = 0; t < 2; ++t) {
      sched::Spawn("ping", [yields] {
        for (int i = 0; i < yields; ++i) sched::Yield();  // always switches
      });
    }
  });
  return Seconds(start) * 1e9 / static_cast<double>(r.last_steps);
}

double ResetNs(int n) {
  const auto start = Clock::now();
  for (int i = 0; i < n; ++i) lockcheck::ResetForTesting();
  return Seconds(start) * 1e9 / n;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t executions = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2000;
  std::printf("sched benchmark: build %s, CPU %s, %u hardware threads\n", Build(),
              CpuModel().c_str(), std::thread::hardware_concurrency());
  for (auto [threads, ops] : {std::pair<int, int>{2, 4}, std::pair<int, int>{4, 2}}) {
    uint64_t steps = 0;
    const double fiber = Controlled("fiber", threads, ops, executions, &steps);
    const double baton = Controlled("baton", threads, ops, executions / 4 + 1, &steps);
    const double plain = Uncontrolled(threads, ops, executions / 4 + 1);
    std::printf("%d threads x %d lock ops (%llu decisions per execution):\n", threads, ops,
                static_cast<unsigned long long>(steps));
    std::printf("  controlled, fiber backend  %9.0f executions/s  (%.2fx uncontrolled)\n", fiber,
                fiber / plain);
    std::printf("  controlled, baton backend  %9.0f executions/s  (%.2fx uncontrolled)\n", baton,
                baton / plain);
    std::printf("  uncontrolled std::threads  %9.0f executions/s\n", plain);
  }
  std::printf("one hand-off: fiber %.0f ns, baton %.0f ns\n", HandOffNs("fiber", 20000),
              HandOffNs("baton", 2000));
  std::printf("lockcheck::ResetForTesting (before every execution): %.0f ns\n", ResetNs(2000));
  return 0;
}
