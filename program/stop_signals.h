// program/stop_signals.h: SIGINT and SIGTERM during a stress run.
//
// A stopped run is never a pass. The first SIGINT/SIGTERM asks the run to
// stop (StressProgress::stop_signal): the threads finish their op, park,
// drain and pass the final checks, and stress_main then reports the run as
// interrupted (JSON "result": "interrupted", exit 128 + signal: 130 for
// SIGINT, 143 for SIGTERM). A second signal does not wait: it writes the
// prepared "interrupted" JSON (no figures) and exits at once with the same
// code (the exit_group system call: no atexit handlers, no sanitizer exit
// checks; the threads are cut off mid-run on purpose).
//
// How: no asynchronous handler. The constructor blocks SIGINT and SIGTERM in
// the calling thread, so every thread started after it inherits the block,
// and one thread of its own takes them with sigwait(). ThreadSanitizer
// defers an asynchronous handler until the receiving thread next enters its
// runtime, and a signal that the kernel hands to a thread about to block or
// exit could wait there for ever (the run then never stopped: seen once in
// `//stress:stress_main_test` under load). Construct it before any other
// thread of the run; Disarm (or the destructor) stops that thread, unblocks
// the signals and restores their default dispositions.
//
//   StopSignals stop(&live, config);     // config: seed resolved, json_out resolved
//   StressResult r = RunStress(config, &live);
//   const int sig = live.stop_signal.exchange(-1);  // -1: "over"; a later
//   if (sig > 0) ... interrupted ...                 // signal exits at once
//   ... write the JSON, print, return ...
#ifndef FLOWCHECK_PROGRAM_STOP_SIGNALS_H_
#define FLOWCHECK_PROGRAM_STOP_SIGNALS_H_

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <memory>
#include <thread>

#include "program/config.h"
#include "program/driver.h"
#include "program/result_json.h"

namespace flowcheck {
namespace program {

class StopSignals {
 public:
  StopSignals(StressProgress* live, const StressConfig& config);
  ~StopSignals();  // Disarm()
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Stops the signal thread, unblocks SIGINT and SIGTERM in the calling
  // thread and restores their default dispositions (idempotent). A signal
  // that arrives after this kills the process as usual.
  void Disarm();

  // 128 + signal: the exit status of a run stopped by `signal`.
  static int ExitCode(int signal) { return 128 + signal; }

 private:
  bool armed_ = false;
  sigset_t blocked_before_;  // the calling thread's mask before the constructor
  std::thread waiter_;       // sigwait()s for SIGINT, SIGTERM and the wake-up
  std::atomic<bool> disarming_{false};  // the wake-up is Disarm's
  std::unique_ptr<PreparedJson> sigint_json_;
  std::unique_ptr<PreparedJson> sigterm_json_;
};

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_STOP_SIGNALS_H_
