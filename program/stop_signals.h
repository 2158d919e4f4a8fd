// program/stop_signals.h: SIGINT and SIGTERM during a stress run.
//
// A stopped run is never a pass. The first SIGINT/SIGTERM asks the run to
// stop (StressProgress::stop_signal): the threads finish their op, park,
// drain and pass the final checks, and stress_main then reports the run as
// interrupted (JSON "result": "interrupted", exit 128 + signal: 130 for
// SIGINT, 143 for SIGTERM). A second signal does not wait: it writes the
// prepared "interrupted" JSON (no figures) and exits at once with the same
// code (the exit_group system call: no atexit handlers, no sanitizer exit
// checks; the threads are cut off mid-run on purpose). While armed, the handlers are the process's; Disarm restores the
// default dispositions.
//
//   StopSignals stop(&live, config);     // config: seed resolved, json_out resolved
//   StressResult r = RunStress(config, &live);
//   const int sig = live.stop_signal.exchange(-1);  // -1: "over"; a later
//   if (sig > 0) ... interrupted ...                 // signal exits at once
//   ... write the JSON, print, return ...
#ifndef FLOWCHECK_PROGRAM_STOP_SIGNALS_H_
#define FLOWCHECK_PROGRAM_STOP_SIGNALS_H_

#include <memory>

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

  // Restores SIG_DFL for SIGINT and SIGTERM (idempotent).
  void Disarm();

  // 128 + signal: the exit status of a run stopped by `signal`.
  static int ExitCode(int signal) { return 128 + signal; }

 private:
  bool armed_ = false;
  std::unique_ptr<PreparedJson> sigint_json_;
  std::unique_ptr<PreparedJson> sigterm_json_;
};

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_STOP_SIGNALS_H_
