// fuzz/sched_fuzz_reproduce.h: what //fuzz:reproduce prints for a
// sched_fuzz ('S') input: the ops per thread, the interleaving step by step
// (each op's begin and end, each observed exp_lock section with the model's
// and the oracle's results), the FAIL marker and its step, and
// "flowcheck: trace hash <hex>". A function of the input's bytes and
// `strict` only: two replays print the same text.
#ifndef FLOWCHECK_FUZZ_SCHED_FUZZ_REPRODUCE_H_
#define FLOWCHECK_FUZZ_SCHED_FUZZ_REPRODUCE_H_

#include <string>

#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {

// Prints to stdout; returns 1 if the program fails, 0 if it passes.
// `schedule_out` non-empty: a failure also writes its schedule file there
// (SchedExecOptions::schedule_out) and prints
// "flowcheck: schedule written: <path>"; 3 if it could not be written.
int ReproduceSched(const Program& p, bool strict, const std::string& schedule_out = "");

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_SCHED_FUZZ_REPRODUCE_H_
