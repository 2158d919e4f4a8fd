// stress/stress_main.cc: the stress driver as a program.
//
//   bazel run --config=tsan //stress:stress_main -- --seconds=60
//   bazel run --config=tsan //stress:stress_main -- --seed=1234 --threads=8
//
// Prints the seed and the rerun command first, a progress line every
// --progress_every seconds (elapsed, ops, ops/s, checks passed), and a final
// summary; with --json_out, a JSON summary for CI. Exit 0 on success; any
// failure prints "flowcheck: FAIL [...]" with the rerun command and aborts
// (tools/campaign.py and tools/selftest.py read exactly that).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <thread>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "stress/config.h"
#include "stress/driver.h"
#include "stress/flags.h"

namespace {

using flowcheck::stress::StressProgress;

// Prints a progress line every `every` seconds until stopped.
class ProgressPrinter {
 public:
  ProgressPrinter(const StressProgress* live, double every) : live_(live), every_(every) {
    if (every_ > 0) thread_ = std::thread([this] { Loop(); });
  }
  ~ProgressPrinter() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Loop() {
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> l(mu_);
    while (!cv_.wait_for(l, std::chrono::duration<double>(every_), [this] { return stop_; })) {
      const double t =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const uint64_t ops = live_->ops.load(std::memory_order_relaxed);
      std::printf("[stress] %6.1fs  ops %10llu  %9.0f ops/s  checks passed: %llu per-op, %llu "
                  "quiescent\n",
                  t, static_cast<unsigned long long>(ops), t > 0 ? ops / t : 0.0,
                  static_cast<unsigned long long>(live_->checks.load(std::memory_order_relaxed)),
                  static_cast<unsigned long long>(
                      live_->quiescent.load(std::memory_order_relaxed)));
      std::fflush(stdout);
    }
  }

  const StressProgress* live_;
  const double every_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "flowcheck's multithreaded stress of the hfi1 flow layer (see docs/stress.md)");
  absl::ParseCommandLine(argc, argv);
  flowcheck::stress::StressConfig config = flowcheck::stress::ConfigFromFlags();
  const std::string invalid = flowcheck::stress::Validate(config);
  if (!invalid.empty()) {
    std::fprintf(stderr, "stress_main: %s\n", invalid.c_str());
    return 2;
  }
  StressProgress live;
  flowcheck::stress::StressResult r;
  {
    ProgressPrinter printer(&live, config.progress_every);
    r = flowcheck::stress::RunStress(config, &live);
  }
  std::printf(
      "[stress] PASS: seed %llu, %d thread(s)%s, %.1f s, %llu ops (%.0f ops/s), checks passed: "
      "%llu per-op, %llu quiescent points, final; %llu work items, %llu yields\n",
      static_cast<unsigned long long>(r.config.seed), r.config.threads,
      r.config.irq_thread ? " + rcv-irq" : "", r.seconds, static_cast<unsigned long long>(r.ops),
      r.ops_per_second(), static_cast<unsigned long long>(r.checks),
      static_cast<unsigned long long>(r.quiescent_points),
      static_cast<unsigned long long>(r.work_items), static_cast<unsigned long long>(r.yields));
  std::printf("[stress] outcomes:");
  for (const auto& c : r.counters) {
    std::printf(" %s=%llu", c.first.c_str(), static_cast<unsigned long long>(c.second));
  }
  std::printf("\n");
  for (const auto& d : r.divergences) {
    std::printf("[stress] upstream divergence seen (a known kernel hazard, not a failure): %s: %s\n",
                d.first.c_str(), d.second.c_str());
  }
  if (!config.json_out.empty()) {
    std::ofstream(config.json_out, std::ios::trunc) << flowcheck::stress::ResultJson(r);
    std::printf("[stress] JSON summary: %s\n", config.json_out.c_str());
  }
  return 0;
}
