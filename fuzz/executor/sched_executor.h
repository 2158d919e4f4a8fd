// fuzz/executor/sched_executor.h: runs a decoded 'S' program (sched_fuzz):
// its 2-4 threads' op lists as logical threads of one controlled execution
// (sched::Run, strategy "bytes" fed the program's scheduling bytes), each op
// through the driver's callers (core/callers.h) on one context, checked
// while the threads interleave. One execution per program; deterministic:
// the same program gives the same result, events and trace hash.
//
//   DecodeResult d = Decode(data, size);           // an 'S' input
//   SchedExecResult r = ExecuteSched(d.program, SchedExecOptions{});
//   if (!r.ok) fputs(SchedFailureReport(d.program, r).c_str(), stderr);
//
// Checks (docs/fuzz.md, "sched_fuzz"):
//  * at every observed exp_lock critical section (the caller's observer, run
//    under the caller's locks), in the order the schedule ran them: core's F
//    and W invariants (CheckInvariants, the form that is safe while other
//    threads run), and the oracle: the section's op is applied to a
//    FlowOracle and the return value and whole state compared, as long as
//    the order of the ops' effects is known (see "oracle order" in the .cc);
//  * work items run where a thread's run_work / run_all_work op says, on
//    that thread, and at the end;
//  * at the end, on the controller after every thread ended: the work queue
//    drained, core's quiescent CheckInvariants and no lost wakeup (the
//    stress driver's CheckAtRest, reused), the oracle once more; then every
//    flow released, every QP flushed and cleared, and the stress driver's
//    CheckFinal (empty mask and queues, references back to 1, no work).
// Known kernel hazards are not failures unless `strict`: upstream
// divergences (as in the sequential targets) and a lost wakeup after a
// flush of a QP that had waited for a flow ("a flush strands the next
// waiter", docs/kernel-hazards.md).
#ifndef FLOWCHECK_FUZZ_EXECUTOR_SCHED_EXECUTOR_H_
#define FLOWCHECK_FUZZ_EXECUTOR_SCHED_EXECUTOR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {

struct SchedExecOptions {
  bool strict = false;  // upstream divergences and the flush hazard fail too
  bool trace = false;   // fill SchedExecResult::events (the interleaving)
  // A failing execution writes its schedule file here (sched/run.h's
  // schedule_out: a file, or a directory): scenario "sched_fuzz", the
  // program as param `input` (hex) and `strict`, target //fuzz:reproduce,
  // which replays, minimizes and draws it (`reproduce --replay=FILE
  // [--minimize] [--trace_out=T]`, sched/cli.h). "": none (the fuzz target:
  // its crash file is the reproduction).
  std::string schedule_out;
};

struct SchedExecResult {
  bool ok = true;
  // On failure: "oracle", "invariant <id>" (core's or the stress checks'),
  // "hazard <name>" (strict only), or the scheduler's own kind ("deadlock",
  // "lockcheck", "step-bound", "exception").
  std::string kind;
  std::string line;    // one line: where and what
  std::string report;  // the details
  size_t fail_step = 0;        // the event at which it was found
  uint64_t trace_hash = 0;     // sched's, of the execution
  uint64_t decisions = 0;      // the scheduler's decisions
  size_t steps = 0;            // events (op begins/ends, observed sections)
  std::vector<std::string> events;  // with SchedExecOptions::trace
  size_t oracle_checks = 0;    // state comparisons made
  std::string oracle_off;      // why the oracle stopped comparing ("" if it never did)
  std::vector<std::string> hazards;  // known hazards seen (not failures)
  std::string schedule_path;  // the schedule file written (schedule_out), or ""
  std::string schedule_error; // why it could not be written, or ""
};

// p.format must be Format::kSched (aborts otherwise: a caller bug).
SchedExecResult ExecuteSched(const Program& p, const SchedExecOptions& options);

// The failure as the target and reproduce print it:
//   flowcheck: FAIL [<kind>] sched_fuzz step <n>: <line>
//   <report>
//   flowcheck: trace hash <hex>
std::string SchedFailureReport(const SchedExecResult& r);

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_EXECUTOR_SCHED_EXECUTOR_H_
