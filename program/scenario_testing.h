// program/scenario_testing.h: testonly. Runs the engine's registered
// scenario ("stress", program/controlled.cc) under dfs from explicit params,
// as a schedule file would give them, for tests that count or compare its
// schedules.
#ifndef FLOWCHECK_PROGRAM_SCENARIO_TESTING_H_
#define FLOWCHECK_PROGRAM_SCENARIO_TESTING_H_

#include <string>
#include <vector>

#include "sched/cli.h"
#include "sched/run.h"
#include "program/config.h"
#include "program/op_table.h"

namespace flowcheck {
namespace program {

// dfs over every schedule of the program `given` names (the scenario's
// defaults for the params it leaves out) within `max_preemptions`, printing
// nothing: with `verbosity` 1 the result's output holds a
// "flowcheck: trace hash" line per schedule. A failing schedule is written
// to `schedule_out` ("" : the current directory). Params that do not
// resolve fail the calling test (gtest) and run nothing.
sched::RunResult RunStressDfs(const sched::ScenarioParams& given, int max_preemptions,
                              int verbosity = 0, const std::string& schedule_out = "");

// The small dfs-over-programs configuration the program-space tests use:
// seed 1, 2 threads of 1 QP, 1 context, 1 worker, rcv-irq on, programs of up
// to `program_ops` ops per participant.
StressConfig SmallDfsConfig(int program_ops);

// Every list of at most `max` ops over `alphabet`, shortest first.
std::vector<std::vector<ListedOp>> AllLists(const std::vector<ListedOp>& alphabet, int max);

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_SCENARIO_TESTING_H_
