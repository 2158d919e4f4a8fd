// program/driver.h: the free-running stress run (RunStress); the controlled
// runs are in controlled.h.
//
//   StressConfig config;             // program/config.h
//   config.seed = 42;
//   StressResult r = RunStress(config);
//
// RunStress builds `contexts` receive contexts (each on its own device; see
// docs/stress.md), threads * qps_per_thread QPs, a work queue with `workers`
// threads, and runs:
//   * `threads` op threads ("stress-<i>"): each owns its QPs and loops over
//     the driver's callers (core/callers.h), each op checked under the
//     caller's own locks (program/op_check.h);
//   * with irq_thread, one emulated receive interrupt ("rcv-irq") doing bare
//     reservations and RESYNCs under exp_lock in hardirq context;
//   * every quiescent_every ops, a quiescent point (program/barrier.h): the
//     work queue drained, full invariants, no lost wakeup, and each thread's
//     idea of its QPs and flows cross-checked against the model;
//   * at the end, a drain: every flow released, every waiter granted (a
//     waiter left with free flows is a lost wakeup), then the final checks
//     and the QPs' teardown (references back to 0).
// A watchdog aborts with a report if nothing progresses for
// watchdog_seconds. Lock rules are live throughout (lockcheck's default
// handler aborts on the first violation).
//
// Any failure prints "flowcheck: FAIL [...]", the seed and the rerun command
// and aborts (program/failure.h); RunStress returns only on success. It
// installs lockcheck's schedule hook for its duration; run one at a time.
#ifndef FLOWCHECK_PROGRAM_DRIVER_H_
#define FLOWCHECK_PROGRAM_DRIVER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "program/config.h"

namespace flowcheck {
namespace program {

// The caller's live view of a run (relaxed atomics): counters for progress
// lines, and a way to stop it early.
struct StressProgress {
  std::atomic<uint64_t> ops{0};          // ops completed by all threads
  std::atomic<uint64_t> checks{0};       // per-op check rounds passed
  std::atomic<uint64_t> quiescent{0};    // quiescent points passed
  // Set nonzero (stress_main: the signal number of a SIGINT or SIGTERM) to
  // end the main phase early. The op threads stop at their next op and the
  // next quiescent point ends the main phase; the drain and the final checks
  // still run, so the run ends with its threads joined and its state
  // checked. May be set from a signal handler.
  std::atomic<int> stop_signal{0};
};

struct StressResult {
  StressConfig config;           // with the seed resolved
  double seconds = 0;            // wall time of the run (threads started .. joined)
  uint64_t ops = 0;              // ops by all op and interrupt threads
  uint64_t checks = 0;           // per-op check rounds (each: core F+W + ownership)
  uint64_t quiescent_points = 0; // full checks at rest
  uint64_t work_items = 0;       // work queue items executed
  uint64_t yields = 0;           // yields/spins injected
  // Per-op-kind and outcome counters, e.g. "setup_eagain", "granted_by_wakeup".
  std::map<std::string, uint64_t> counters;
  // Upstream divergences seen (core's kUpstreamDivergence ids, e.g. "W5"),
  // with one example each: the kernel's known hazards, not failures.
  std::map<std::string, std::string> divergences;
  // The StressProgress::stop_signal that ended the main phase early, or 0.
  int stopped_by = 0;
  double ops_per_second() const { return seconds > 0 ? ops / seconds : 0; }
};

// Runs `config` (seed 0: a random seed, printed). Prints the seed and the
// rerun command at start. Returns when the run ended with every check passed
// (at its limit, or early on a stop request: see StressProgress); aborts on
// any failure. `progress`, if given, is updated live (stress_main prints it)
// and may carry a stop request.
StressResult RunStress(const StressConfig& config, StressProgress* progress = nullptr);

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_DRIVER_H_
