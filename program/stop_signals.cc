// program/stop_signals.cc: see stop_signals.h.
#include "program/stop_signals.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "program/failure.h"
#include "program/result_json.h"

namespace flowcheck {
namespace program {
namespace {

// What the handler may touch: set before the handlers are installed, cleared
// after they are removed.
std::atomic<int>* g_stop = nullptr;
const PreparedJson* g_sigint_json = nullptr;
const PreparedJson* g_sigterm_json = nullptr;

void OnStopSignal(int sig) {
  const int saved_errno = errno;
  int expected = 0;
  if (g_stop != nullptr && g_stop->compare_exchange_strong(expected, sig)) {
    WriteStderr(sig == SIGINT ? "\nflowcheck stress: SIGINT: stopping the threads (this run will "
                                "not count as a pass; send it again to exit at once)\n"
                              : "\nflowcheck stress: SIGTERM: stopping the threads (this run will "
                                "not count as a pass; send it again to exit at once)\n");
    errno = saved_errno;
    return;
  }
  // A second signal, or one after the run was over (stop_signal -1): no
  // waiting, but still a JSON and an exit status that say "interrupted".
  // Unless someone else already writes the JSON: a failure (it aborts) or
  // stress_main's summary (the run is over, it exits); then the signal is
  // ignored rather than cutting that write short.
  const PreparedJson* json = sig == SIGINT ? g_sigint_json : g_sigterm_json;
  if (json != nullptr) {
    if (!ClaimJsonOut()) {
      errno = saved_errno;
      return;
    }
    json->Write();
  }
  WriteStderr("flowcheck stress: INTERRUPTED: exiting now; this run is not a pass\n");
  // The raw exit_group system call, not _exit: ThreadSanitizer intercepts
  // _exit and would report the threads that finished but were never joined
  // (a run cut short has such threads by design) and exit 66 instead.
  syscall(SYS_exit_group, 128 + sig);
}

}  // namespace

StopSignals::StopSignals(StressProgress* live, const StressConfig& config) {
  if (!config.json_out.empty()) {
    const char* detail = "a second signal ended the process before the threads finished";
    sigint_json_ = std::make_unique<PreparedJson>(config.json_out,
                                                  InterruptedJson(SIGINT, detail, config));
    sigterm_json_ = std::make_unique<PreparedJson>(config.json_out,
                                                   InterruptedJson(SIGTERM, detail, config));
  }
  g_stop = &live->stop_signal;
  g_sigint_json = sigint_json_.get();
  g_sigterm_json = sigterm_json_.get();
  struct sigaction sa = {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  armed_ = true;
}

StopSignals::~StopSignals() { Disarm(); }

void StopSignals::Disarm() {
  if (!armed_) return;
  armed_ = false;
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  g_stop = nullptr;
  g_sigint_json = nullptr;
  g_sigterm_json = nullptr;
}

}  // namespace program
}  // namespace flowcheck
