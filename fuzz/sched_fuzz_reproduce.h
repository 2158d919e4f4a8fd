// fuzz/sched_fuzz_reproduce.h: what //fuzz:reproduce prints for a
// sched_fuzz ('S') input: its scenario and each participant's ops (the
// engine's text, program/op_table.h), then the execution's outcome: the FAIL
// marker with the scheduler's report, or PASSES with what the oracle
// compared; "flowcheck: trace hash <hex>" either way. A function of the
// input's bytes and `strict` only: two replays print the same text. Its
// step-by-step view is the schedule's timeline (tools/reproduce.sh
// --timeline).
#ifndef FLOWCHECK_FUZZ_SCHED_FUZZ_REPRODUCE_H_
#define FLOWCHECK_FUZZ_SCHED_FUZZ_REPRODUCE_H_

#include <string>

#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {

// Prints to stdout; returns 1 if the program fails, 0 if it passes.
// `schedule_out` non-empty: a failure also writes its schedule file there (a
// stress schedule of the same program, program/controlled.h) and prints
// "flowcheck: schedule written: <path>"; 3 if it could not be written.
int ReproduceSched(const Program& p, bool strict, const std::string& schedule_out = "");

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_SCHED_FUZZ_REPRODUCE_H_
