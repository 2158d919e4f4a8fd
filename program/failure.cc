// program/failure.cc: see failure.h.
#include "program/failure.h"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "common/atomic_file.h"
#include "common/strings.h"
#include "lockcheck/report.h"
#include "program/result_json.h"
#include "sched/sched.h"

extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace flowcheck {
namespace program {
namespace {

// Built by ArmFailureReporting while the process is healthy, read by the
// failure paths (signal handlers among them). Replaced only by the next Arm,
// after the previous run's threads are gone.
struct Armed {
  StressConfig config;
  std::string trailer;                       // the seed and rerun lines
  std::unique_ptr<PreparedJson> abort_json;  // nullptr without --json_out
  std::unique_ptr<PreparedJson> sanitizer_json;
  lockcheck::ReportHandler lockcheck_previous = nullptr;
};
Armed* g_state = nullptr;
std::atomic<bool> g_armed{false};
std::atomic<bool> g_failing{false};        // Fail() is reporting
std::atomic<bool> g_json_claimed{false};   // someone writes (or wrote) the JSON
std::atomic<bool> g_trailer_printed{false};
// Controlled runs: one OS thread runs every logical thread, the failure is
// recorded and handed to the scheduler.
bool g_controlled = false;
bool g_controlled_failed = false;
std::string* g_controlled_what = nullptr;
std::string* g_controlled_detail = nullptr;

// Async-signal-safe: prints the seed and rerun lines once.
void PrintTrailerOnce() {
  if (!g_armed.load(std::memory_order_acquire)) return;
  if (g_trailer_printed.exchange(true)) return;
  WriteStderr(g_state->trailer.c_str());
}

// Async-signal-safe.
void WritePreparedJsonOnce(const PreparedJson* json) {
  if (!g_armed.load(std::memory_order_acquire) || json == nullptr) return;
  if (ClaimJsonOut()) json->Write();
}

// Not signal-safe (allocates): for Fail() and the lockcheck handler.
void WriteFailureJsonOnce(const std::string& what, const std::string& detail) {
  if (!g_armed.load(std::memory_order_acquire) || g_state->config.json_out.empty()) return;
  if (!ClaimJsonOut()) return;
  const std::string error = WriteFileAtomically(g_state->config.json_out,
                                                FailureJson(what, detail, g_state->config));
  if (!error.empty()) WriteStderr(("flowcheck: " + error + "\n").c_str());
}

void OnAbort(int) {
  WritePreparedJsonOnce(g_state != nullptr ? g_state->abort_json.get() : nullptr);
  PrintTrailerOnce();
  signal(SIGABRT, SIG_DFL);
  raise(SIGABRT);
}

void OnSanitizerDeath() {
  WritePreparedJsonOnce(g_state != nullptr ? g_state->sanitizer_json.get() : nullptr);
  PrintTrailerOnce();
}

// Wraps the handler that was installed (lockcheck's default prints the
// report and aborts): the JSON names the rule before that happens.
void OnLockcheckReport(const lockcheck::Report& report) {
  const std::string first_line = report.message.substr(0, report.message.find('\n'));
  WriteFailureJsonOnce(
      flowcheck::StrCat("lockcheck: ", lockcheck::RuleName(report.rule), " on ", report.lock_class),
      first_line);
  lockcheck::ReportHandler previous = g_state->lockcheck_previous;
  if (previous != nullptr) previous(report);
}

}  // namespace

bool ClaimJsonOut() { return !g_json_claimed.exchange(true); }

std::string SeedLine(uint64_t seed) {
  return flowcheck::StrCat("flowcheck: seed ", seed,
                           " (it fixes each thread's op list and yield decisions, not the "
                           "interleaving: a rerun may need several tries to meet the same race)");
}

std::string FailureText(const std::string& what, const std::string& detail,
                        const StressConfig& c) {
  return flowcheck::StrCat("flowcheck: FAIL [", what, "] ", detail, "\n", SeedLine(c.seed), "\n",
                           "flowcheck: rerun: ", RerunCommand(c), "\n");
}

void ArmFailureReporting(const StressConfig& c) {
  auto state = std::make_unique<Armed>();
  state->config = c;
  state->trailer = flowcheck::StrCat(
      Controlled(c) ? flowcheck::StrCat("flowcheck: seed ", c.seed,
                                        " (a controlled run: the same flags repeat it exactly)")
                    : SeedLine(c.seed),
      "\nflowcheck: rerun: ", RerunCommand(c), "\n");
  if (!c.json_out.empty()) {
    state->abort_json = std::make_unique<PreparedJson>(
        c.json_out,
        FailureJson("abort", "the process aborted (see the log above the seed line)", c));
    state->sanitizer_json = std::make_unique<PreparedJson>(
        c.json_out,
        FailureJson(BuiltWithTsan() ? "ThreadSanitizer report" : "sanitizer report",
                    "a sanitizer report ended the run (see the log above the seed line)", c));
  }
  g_armed.store(false, std::memory_order_release);
  const lockcheck::ReportHandler previous =
      g_state != nullptr ? g_state->lockcheck_previous : nullptr;
  delete g_state;
  g_state = state.release();
  // Wrap whatever handler is installed, unless it is already our wrapper.
  lockcheck::ReportHandler installed = lockcheck::SetReportHandler(&OnLockcheckReport);
  g_state->lockcheck_previous = installed == &OnLockcheckReport ? previous : installed;
  g_trailer_printed.store(false);
  g_json_claimed.store(false);
  g_armed.store(true, std::memory_order_release);
  signal(SIGABRT, OnAbort);
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(OnSanitizerDeath);
}

void DisarmFailureReporting() {
  g_armed.store(false, std::memory_order_release);
  signal(SIGABRT, SIG_DFL);
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(nullptr);
  if (g_state != nullptr) {
    lockcheck::SetReportHandler(g_state->lockcheck_previous);
    g_state->lockcheck_previous = nullptr;
  }
}

void SetControlledFailures(bool on) {
  g_controlled = on;
  if (on) g_controlled_failed = false;
  if (g_controlled_what == nullptr) {
    g_controlled_what = new std::string();
    g_controlled_detail = new std::string();
  }
}

bool LastControlledFailure(std::string* what, std::string* detail) {
  if (!g_controlled_failed) return false;
  *what = *g_controlled_what;
  *detail = *g_controlled_detail;
  return true;
}

void Fail(const std::string& what, const std::string& detail) {
  if (g_controlled) {
    g_controlled_failed = true;
    *g_controlled_what = what;
    *g_controlled_detail = detail;
    sched::Fail("[" + what + "] " + detail);
  }
  if (g_failing.exchange(true)) {
    // Another thread is reporting; it aborts the process.
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (BuiltWithTsan()) {
    // A broken invariant is often the symptom of a data race still in
    // progress: another thread's unlocked write that made the state wrong is
    // about to happen, or half done. Give ThreadSanitizer, which names the
    // two racing accesses (the cause), the moment it needs to report it
    // first; it then ends the process itself (halt_on_error). A failure with
    // no race behind it is reported as below, half a second later.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  const bool armed = g_armed.load(std::memory_order_acquire);
  const StressConfig c = armed ? g_state->config : StressConfig{};
  const std::string text = FailureText(what, detail, c);
  g_trailer_printed.store(true);  // the text below carries seed and rerun
  std::fflush(stdout);
  WriteStderr(text.c_str());
  WriteFailureJsonOnce(what, detail);
  std::abort();
}

}  // namespace program
}  // namespace flowcheck
