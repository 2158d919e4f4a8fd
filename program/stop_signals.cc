// program/stop_signals.cc: see stop_signals.h.
#include "program/stop_signals.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "program/failure.h"
#include "program/result_json.h"

namespace flowcheck {
namespace program {
namespace {

// Sent by Disarm to the signal thread (blocked like the other two, so only
// that thread takes it): "stop waiting".
constexpr int kWakeUp = SIGUSR2;

sigset_t Signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, kWakeUp);
  return set;
}

// The signal thread: runs outside any handler, so it may print and write
// the JSON like any code.
void WaitForSignals(std::atomic<int>* stop, const std::atomic<bool>* disarming,
                    const PreparedJson* sigint_json, const PreparedJson* sigterm_json) {
  const sigset_t set = Signals();
  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (sig == kWakeUp) {
      if (disarming->load()) return;
      continue;  // someone else's SIGUSR2: not ours to act on
    }
    int expected = 0;
    if (stop->compare_exchange_strong(expected, sig)) {
      WriteStderr(sig == SIGINT ? "\nflowcheck stress: SIGINT: stopping the threads (this run will "
                                  "not count as a pass; send it again to exit at once)\n"
                                : "\nflowcheck stress: SIGTERM: stopping the threads (this run will "
                                  "not count as a pass; send it again to exit at once)\n");
      continue;
    }
    // A second signal, or one after the run was over (stop_signal -1): no
    // waiting, but still a JSON and an exit status that say "interrupted".
    // Unless someone else already writes the JSON: a failure (it aborts) or
    // stress_main's summary (the run is over, it exits); then the signal is
    // ignored rather than cutting that write short.
    const PreparedJson* json = sig == SIGINT ? sigint_json : sigterm_json;
    if (json != nullptr) {
      if (!ClaimJsonOut()) continue;
      json->Write();
    }
    WriteStderr("flowcheck stress: INTERRUPTED: exiting now; this run is not a pass\n");
    // The raw exit_group system call, not _exit: ThreadSanitizer intercepts
    // _exit and would report the threads that finished but were never
    // joined (a run cut short has such threads by design) and exit 66.
    syscall(SYS_exit_group, 128 + sig);
  }
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
  const sigset_t set = Signals();
  pthread_sigmask(SIG_BLOCK, &set, &blocked_before_);
  waiter_ = std::thread(WaitForSignals, &live->stop_signal, &disarming_, sigint_json_.get(),
                        sigterm_json_.get());
  armed_ = true;
}

StopSignals::~StopSignals() { Disarm(); }

void StopSignals::Disarm() {
  if (!armed_) return;
  armed_ = false;
  disarming_.store(true);
  pthread_kill(waiter_.native_handle(), kWakeUp);
  waiter_.join();
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  // A signal that came after the wake-up is still pending: with the old mask
  // back it is delivered now, with the default disposition.
  pthread_sigmask(SIG_SETMASK, &blocked_before_, nullptr);
}

}  // namespace program
}  // namespace flowcheck
