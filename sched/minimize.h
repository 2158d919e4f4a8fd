// sched/minimize.h: shrinking a failing schedule (--minimize, cli.h).
//
//   sched_examples --replay=FILE.schedule --minimize
//
// Given a schedule file that fails, finds a smaller one with the same
// failure marker and writes it beside the input as <name>.min.schedule
// (FILE minus ".schedule", plus ".min.schedule"; never the input itself),
// atomically. Two things shrink:
//  * the ops: every scenario parameter named `ops.<k>` is a comma-separated
//    list (one thread's ops, say); elements are deleted ddmin-style (halves,
//    quarters, ... down to one at a time) while the marker still shows;
//  * the preemptions: the decision list is cut short (the rest of the run
//    then goes on without preemption), and each remaining preemptive
//    decision is replaced by "go on with the current thread".
// Every candidate is run once with the lenient `guided` strategy (strategy.h)
// over the last kept run's decisions, and kept when its failure has the same
// marker (FailureMarker) and it is strictly smaller: fewer ops, else fewer
// preemptions, else fewer decisions. The kept run's own decisions are
// re-recorded, so the written schedule is strict: it is replayed (in this
// process) before it is written, and must reproduce exactly.
//
// Printed (to `out`): the input's and the result's counts
//   flowcheck: minimize: before: ops 12, decisions 52, preemptions 3
//   flowcheck: minimize: after:  ops 2, decisions 10, preemptions 1 (37 candidate runs, 9 kept)
//   flowcheck: schedule written: <absolute path>
//   flowcheck: rerun: tools/reproduce.sh <absolute path>
// then the minimized failure as a replay prints it (FAIL line, report,
// trace hash).
#ifndef FLOWCHECK_SCHED_MINIMIZE_H_
#define FLOWCHECK_SCHED_MINIMIZE_H_

#include <cstdio>
#include <string>
#include <vector>

#include "sched/cli.h"
#include "sched/run.h"
#include "sched/schedule_file.h"

namespace sched {

// What must stay the same for a candidate to count as the same failure: the
// failure kind, and the FAIL line's text with what legitimately differs
// between runs made equal: every hexadecimal address (0x and 8 or more hex
// digits; a shorter 0x value such as a mask stays) becomes "0x?" and every
// lockcheck thread id ("thread 17 \"name\"": ids count up over a
// process's executions) becomes "thread ?". Everything else (thread names,
// lock classes, the check's text, file, line and other numbers) must match.
std::string FailureMarker(const std::string& kind, const std::string& line);

// Preemptions of a decision list: decisions where the thread chosen at the
// previous decision is still runnable (so it reached a point and could go
// on) and another one is chosen. A thread that ended or yields is not in the
// runnable set, so switching away from it is no preemption (as in dfs).
int CountPreemptions(const std::vector<ScheduledDecision>& decisions);

// Elements of every `ops.<k>` parameter.
int CountOps(const ScenarioParams& params);

// <input minus ".schedule">.min.schedule.
std::string MinimizedPath(const std::string& input_path);

// Minimizes `input` (loaded from `input_path`) of scenario `spec`. `base`
// gives the target and, optionally, trace_out (then the minimized failure's
// trace is written). Exit status: 1 the minimized schedule was written and
// reproduces strictly; 2 the input does not reproduce its recorded failure
// (or a parameter is unusable); 3 the result could not be written (the
// message names the path and the errno text).
int MinimizeSchedule(const ScenarioSpec& spec, const std::string& input_path,
                     const Schedule& input, const Options& base, FILE* out);

}  // namespace sched

#endif  // FLOWCHECK_SCHED_MINIMIZE_H_
