// stress/failure.h: how a stress run fails.
//
// Every failure the driver detects ends the process the same way:
//
//   flowcheck: FAIL [invariant F1] flow 3 is owned 2 times: qp 1, qp 2 ...
//   flowcheck: seed 1234
//   flowcheck: rerun: bazel run --config=tsan //stress:stress_main -- --seed=1234 ...
//
// then abort(). The marker line is what tools/selftest.py and CI classify
// ("[invariant <ID>]", "[watchdog]"). Failures found by someone else also
// print the rerun command once armed: a lockcheck report (its default
// handler aborts: SIGABRT) and a ThreadSanitizer report (halt_on_error: the
// sanitizer's death callback).
#ifndef FLOWCHECK_STRESS_FAILURE_H_
#define FLOWCHECK_STRESS_FAILURE_H_

#include <string>

#include "stress/config.h"

namespace flowcheck {
namespace stress {

// Remembers `c`'s seed, rerun command and JSON path for the failure paths and
// installs the SIGABRT handler and the sanitizer death callback. Call before
// the run's threads start; DisarmFailureReporting() after they are joined.
void ArmFailureReporting(const StressConfig& c);
void DisarmFailureReporting();

// Prints "flowcheck: FAIL [<what>] <detail>", the seed and the rerun command
// to stderr, writes {"result": "fail", ...} to the JSON path if any, and
// aborts. `what` is "invariant <ID>" or "watchdog". Safe from any thread; if
// two threads fail at once, the first one reports and the other waits for
// the abort.
[[noreturn]] void Fail(const std::string& what, const std::string& detail);

// The text Fail() prints, without printing or aborting (for tests).
std::string FailureText(const std::string& what, const std::string& detail,
                        const StressConfig& c);

}  // namespace stress
}  // namespace flowcheck

#endif  // FLOWCHECK_STRESS_FAILURE_H_
