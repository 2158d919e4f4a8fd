// program/failure.h: how a stress run fails.
//
// Every failure the engine detects ends the process the same way:
//
//   flowcheck: FAIL [invariant F1] flow 3 is owned 2 times: qp 1, qp 2 ...
//   flowcheck: seed 1234 (it fixes each thread's op list, not the interleaving: ...)
//   flowcheck: rerun: bazel run --config=tsan //stress:stress_main -- --seed=1234 ...
//
// then abort(). The marker line is what tools/selftest.py and CI classify
// ("[invariant <ID>]", "[watchdog]"). With --json_out, the JSON file says
// {"result": "fail", "failure": <marker>, ...} (program/result_json.h), written
// atomically before the abort. Failures found by someone else also print the
// seed and rerun lines and write the JSON once armed:
//   - a lockcheck report: its handler is wrapped, so the JSON names the rule
//     ("lockcheck: <rule> on <class>") before lockcheck prints and aborts;
//   - a sanitizer report (TSan's halt_on_error): the sanitizer's death
//     callback writes a JSON prepared at arming ("ThreadSanitizer report");
//   - any other abort: the SIGABRT handler writes a prepared one ("abort").
// The first failure writes the JSON; later ones leave it alone. A JSON write
// that fails prints "flowcheck: cannot write <path>: ..." (the process is
// failing anyway: its exit status is the abort's).
//
// One writer per run: every path that writes the run's JSON (these, a
// second stop signal, stress_main's summary) first calls ClaimJsonOut(),
// and only the first to claim writes, so two writers never race on the file.
//
// This state is process-wide on purpose: signal handlers and sanitizer
// callbacks can reach nothing else.
#ifndef FLOWCHECK_PROGRAM_FAILURE_H_
#define FLOWCHECK_PROGRAM_FAILURE_H_

#include <string>

#include "program/config.h"

namespace flowcheck {
namespace program {

// Remembers `c` (seed resolved; json_out as the path to write, "" for none)
// for the failure paths, prepares their JSON documents, and installs the
// SIGABRT handler, the sanitizer death callback and the lockcheck report
// handler wrapper. Call before the run's threads start;
// DisarmFailureReporting() after they are joined.
void ArmFailureReporting(const StressConfig& c);
void DisarmFailureReporting();

// Prints "flowcheck: FAIL [<what>] <detail>", the seed and the rerun command
// to stderr, writes {"result": "fail", ...} to the JSON path if any, and
// aborts. In a TSan build it first waits half a second: a broken invariant
// may be the symptom of a data race whose second access is still to come,
// and TSan's report of that race (the cause) then comes first. `what` is "invariant <ID>" or "watchdog". Safe from any thread; if
// two threads fail at once, the first one reports and the other waits for
// the abort.
[[noreturn]] void Fail(const std::string& what, const std::string& detail);

// Controlled runs (--sched, program/controlled.h): while on, Fail() does not
// print or abort but ends the current execution through the scheduler
// (sched::Fail, which writes the schedule file first), and remembers `what`
// and `detail` for LastControlledFailure. No TSan wait: under control the
// threads run one at a time, so no racing access is still in flight.
void SetControlledFailures(bool on);
// The last failure routed to the scheduler since SetControlledFailures(true);
// false if none.
bool LastControlledFailure(std::string* what, std::string* detail);

// The text Fail() prints, without printing or aborting (for tests).
std::string FailureText(const std::string& what, const std::string& detail,
                        const StressConfig& c);

// True for the first caller after ArmFailureReporting, false for every other
// one: the caller that gets true writes the run's JSON. Async-signal-safe.
bool ClaimJsonOut();

// "flowcheck: seed <n> (...)": the seed line of a failure, saying what the
// seed fixes and what it does not.
std::string SeedLine(uint64_t seed);

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_FAILURE_H_
