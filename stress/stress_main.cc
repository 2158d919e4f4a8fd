// stress/stress_main.cc: the stress driver as a program.
//
//   bazel run --config=tsan //stress:stress_main -- --seconds=60
//   bazel run --config=tsan //stress:stress_main -- --seed=1234 --threads=8
//
// Prints the seed and the rerun command first, a progress line every
// --progress_every seconds (elapsed, ops, ops/s, checks passed), and a final
// summary; with --json_out, a JSON summary for CI (program/result_json.h).
// Exit status:
//   0    every check passed (the JSON, if asked for, is written)
//   1    every check passed but the JSON could not be written (the line
//        "flowcheck: cannot write <path>: ..." says why)
//   2    a bad command line: unknown flag, bad or non-finite value, an
//        argument that is not a flag, or a --json_out directory that cannot
//        be written (checked before the run starts)
//   130  stopped by SIGINT, 143 by SIGTERM: not a pass (JSON "interrupted")
//   any failure prints "flowcheck: FAIL [...]" (or a lockcheck / sanitizer
//        report) with the rerun command and aborts (SIGABRT, or the
//        sanitizer's exit code); tools/campaign.py and tools/selftest.py
//        read exactly that.
// With --sched=random|pct|dfs or --replay=FILE (program/controlled.h): 0 no
// failure, 1 a failure found or reproduced (the schedule file written first),
// 2 a bad command line or an unusable schedule file, 3 the failing schedule
// could not be written.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/atomic_file.h"
#include "program/config.h"
#include "program/controlled.h"
#include "program/driver.h"
#include "program/failure.h"
#include "program/result_json.h"
#include "program/stop_signals.h"
#include "sched/cli.h"
#include "stress/flags.h"

namespace {

using flowcheck::program::StressProgress;

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

void PrintSummary(const flowcheck::program::StressResult& r, int interrupted_by) {
  const char* verdict = interrupted_by != 0 ? "INTERRUPTED" : "PASS";
  std::printf(
      "[stress] %s: seed %llu (fixes each thread's op list, not the interleaving), %d "
      "thread(s)%s, %.1f s, %llu ops (%.0f ops/s), checks passed: %llu per-op, %llu quiescent "
      "points, final; %llu work items, %llu yields\n",
      verdict, static_cast<unsigned long long>(r.config.seed), r.config.threads,
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
    std::printf(
        "[stress] upstream divergence seen (a known kernel hazard, not a failure): %s: %s\n",
        d.first.c_str(), d.second.c_str());
  }
  if (interrupted_by != 0) {
    std::printf("[stress] the run was interrupted by %s after %.1f s: stopped early, this is "
                "NOT a pass (the checks that ran passed)\n",
                flowcheck::program::SignalName(interrupted_by).c_str(), r.seconds);
  }
}

// Writes the JSON summary atomically and says where; a write failure is
// printed with its path and errno text and turns a passing *status into 1.
void WriteSummaryJson(const std::string& path, const std::string& json, int* status) {
  const std::string error = flowcheck::WriteFileAtomically(path, json);
  if (error.empty()) {
    std::printf("[stress] JSON summary: %s\n", path.c_str());
    return;
  }
  std::fflush(stdout);
  std::fprintf(stderr, "flowcheck: %s\n", error.c_str());
  if (*status == 0) *status = 1;
}

// --sched=random|pct|dfs or --replay=FILE (program/controlled.h). Exit
// status: 0 no failure, 1 a failure found or reproduced (or the JSON could
// not be written), 2 an unusable schedule file, 3 the failing schedule could
// not be written.
int ControlledMain(flowcheck::program::StressConfig config, const std::string& replay) {
  namespace fs = flowcheck::program;
  if (replay.empty()) {
    if (config.seed == 0) config.seed = fs::RandomSeed();
    std::printf("flowcheck stress: seed %llu, controlled (--sched=%s); rerun: %s\n",
                static_cast<unsigned long long>(config.seed), config.sched.c_str(),
                fs::RerunCommand(config).c_str());
  } else {
    std::printf("flowcheck stress: replaying %s\n", replay.c_str());
  }
  std::fflush(stdout);
  fs::ArmFailureReporting(config);
  const fs::ControlledResult r = fs::RunControlled(config, replay);
  fs::DisarmFailureReporting();
  if (r.status == 2) return 2;
  const fs::StressResult& s = r.stats;
  if (r.status == 0) {
    std::printf("[stress] PASS: %s, %llu execution(s) (%s), %d op thread(s)%s x %s%d ops, "
                "%llu ops, checks passed: %llu per-op, %llu quiescent points and final; %llu "
                "work items\n",
                replay.empty() ? ("seed " + std::to_string(config.seed)).c_str() : "replay",
                static_cast<unsigned long long>(r.executions),
                replay.empty() ? ("--sched=" + config.sched).c_str() : "replayed",
                config.threads, config.irq_thread ? " + rcv-irq" : "",
                config.sched_program_ops > 0 ? "<= " : "",
                config.sched_program_ops > 0 ? config.sched_program_ops : config.sched_ops,
                static_cast<unsigned long long>(s.ops), static_cast<unsigned long long>(s.checks),
                static_cast<unsigned long long>(s.quiescent_points),
                static_cast<unsigned long long>(s.work_items));
    if (r.oracle_executions > 0) {
      std::printf("[stress] oracle: %llu comparisons; followed %llu of %llu execution(s) "
                  "throughout, took up the model's state again %llu time(s)%s%s\n",
                  static_cast<unsigned long long>(r.oracle_comparisons),
                  static_cast<unsigned long long>(r.oracle_followed),
                  static_cast<unsigned long long>(r.oracle_executions),
                  static_cast<unsigned long long>(r.oracle_resumed),
                  r.oracle_first_stop.empty() ? "" : "; the first it left: ",
                  r.oracle_first_stop.c_str());
    }
    for (const auto& d : s.divergences) {
      std::printf(
          "[stress] upstream divergence seen (a known kernel hazard, not a failure): %s: %s\n",
          d.first.c_str(), d.second.c_str());
    }
  }
  int status = r.status;
  if (!config.json_out.empty() && fs::ClaimJsonOut()) {
    const std::string json =
        r.status == 0 ? fs::ResultJson(s, 0)
                      : fs::FailureJson(r.marker,
                                        r.detail + (r.schedule_path.empty()
                                                        ? std::string()
                                                        : " (schedule: " + r.schedule_path +
                                                              "; rerun: tools/reproduce.sh " +
                                                              r.schedule_path + ")"),
                                        config);
    WriteSummaryJson(config.json_out, json, &status);
  }
  std::fflush(stdout);
  return status;
}

// --minimize and --trace_out=FILE work on a schedule file (--replay=FILE):
// they are the scheduler's own tools (sched/cli.h: the "stress" scenario is
// registered by program/controlled.cc), so they run through sched::Main
// (tools/reproduce.sh --minimize / --timeline uses them).
int ScheduleToolMain(const std::string& replay, bool minimize, const std::string& trace_out) {
  std::vector<std::string> args = {"stress_main", "--replay=" + replay};
  if (minimize) args.push_back("--minimize");
  if (!trace_out.empty()) args.push_back("--trace_out=" + trace_out);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  // Failures go to the scheduler, as in RunControlled (program/failure.h).
  flowcheck::program::SetControlledFailures(true);
  const int status =
      sched::Main(static_cast<int>(argv.size()), argv.data(), "//stress:stress_main");
  flowcheck::program::SetControlledFailures(false);
  return status;
}

// The OS-scheduled run (the default mode).
int FreeRunningMain(flowcheck::program::StressConfig config) {
  if (config.seed == 0) config.seed = flowcheck::program::RandomSeed();
  StressProgress live;
  flowcheck::program::StopSignals stop_signals(&live, config);
  flowcheck::program::StressResult r;
  {
    ProgressPrinter printer(&live, config.progress_every);
    r = flowcheck::program::RunStress(config, &live);
  }
  // From here a signal exits at once (stop_signals.h); before, it stopped the run.
  const int interrupted_by = std::max(live.stop_signal.exchange(-1), 0);
  PrintSummary(r, interrupted_by);
  int status = interrupted_by != 0 ? flowcheck::program::StopSignals::ExitCode(interrupted_by) : 0;
  if (!config.json_out.empty()) {
    // A late signal's handler may have claimed the file: it writes
    // "interrupted" and exits the process; wait for that.
    if (!flowcheck::program::ClaimJsonOut()) {
      for (;;) pause();
    }
    WriteSummaryJson(config.json_out, flowcheck::program::ResultJson(r, interrupted_by), &status);
  }
  std::fflush(stdout);
  return status;
}

}  // namespace

// One parser for every mode; then one route per mode: a schedule tool
// (--replay with --minimize or --trace_out), a controlled run or replay
// (--sched, --replay), or the OS-scheduled run.
int main(int argc, char** argv) {
  const std::string bad_flag = flowcheck::stress::ParseFlags(argc, argv);
  if (!bad_flag.empty()) {
    std::fprintf(stderr, "stress_main: %s\n", bad_flag.c_str());
    return 2;
  }
  flowcheck::program::StressConfig config = flowcheck::stress::ConfigFromFlags();
  const std::string invalid = flowcheck::program::Validate(config);
  if (!invalid.empty()) {
    std::fprintf(stderr, "stress_main: %s\n", invalid.c_str());
    return 2;
  }
  const std::string replay = flowcheck::stress::ReplayFlag();
  const bool minimize = flowcheck::stress::MinimizeFlag();
  const std::string trace_out = flowcheck::stress::TraceOutFlag();
  const bool tool = minimize || !trace_out.empty();
  if (tool && replay.empty()) {
    std::fprintf(stderr, "stress_main: --minimize and --trace_out need --replay=FILE\n");
    return 2;
  }
  if (!config.json_out.empty()) {
    // Relative to where the user ran the command, not bazel run's runfiles.
    config.json_out = flowcheck::ResolveUserPath(config.json_out);
    const std::string unwritable = flowcheck::CheckArtifactPath(config.json_out);
    if (!unwritable.empty()) {
      std::fprintf(stderr, "stress_main: --json_out: %s\n", unwritable.c_str());
      return 2;
    }
  }
  if (!replay.empty()) {
    // Any rerun flag (a run parameter) differing from its default is refused.
    if (flowcheck::program::RerunFlags(config) !=
            flowcheck::program::RerunFlags(flowcheck::program::StressConfig{}) ||
        !config.schedule_out.empty() || (tool && !config.json_out.empty())) {
      std::fprintf(stderr, "stress_main: --replay takes every parameter from the schedule file "
                           "(only --json_out may be given with it, and not with --minimize or "
                           "--trace_out)\n");
      return 2;
    }
  }
  if (tool) return ScheduleToolMain(replay, minimize, trace_out);
  if (!replay.empty() || flowcheck::program::Controlled(config)) {
    return ControlledMain(config, replay);
  }
  return FreeRunningMain(config);
}
