// fuzz/sched_program.h: an 'S' input (fuzz/sched_fuzz_format.h) as what it
// is, a concurrent program of the engine (program/controlled.h), and its one
// execution under its scheduling bytes. sched_fuzz, reproduce, the seeds and
// their tests all run an input through here, so it means the same program
// to each, and the same program as a stress schedule file holding it.
//
//   DecodeResult d = Decode(data, size);                // an 'S' input
//   program::ControlledResult r = RunSched(d.program, strict, /*quiet=*/true);
//   if (r.status == 1) fputs(SchedFailureReport(r).c_str(), stderr);
#ifndef FLOWCHECK_FUZZ_SCHED_PROGRAM_H_
#define FLOWCHECK_FUZZ_SCHED_PROGRAM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/input_format.h"
#include "program/config.h"
#include "program/controlled.h"
#include "program/op_list.h"

namespace flowcheck {
namespace fuzz {

// The engine's scenario for p (format 'S'): one context, p's shape, model
// seed p.seed + 1. `strict`: the kernel's known hazards fail too (upstream
// divergences, and a flush that strands the next waiter: no hand-off of
// the wakeup after a flush, --flush_handoff=false).
program::StressConfig SchedConfig(const Program& p, bool strict);
// p's op lists, one per participant (op threads, then rcv-irq).
program::OpLists SchedLists(const Program& p);

// Runs p's one execution (program::RunProgram with p.schedule). A failure
// writes its schedule file to `schedule_out` if not "" (a stress schedule
// of the same program: tools/reproduce.sh replays, minimizes and draws it).
program::ControlledResult RunSched(const Program& p, bool strict, bool quiet,
                                   const std::string& schedule_out = "");

// The 'S' program of a scenario, its lists and scheduling bytes (its
// decisions as sched::ByteFor gives them): how a failure found by a search
// becomes an input. False with *error if it does not fit the format (one
// context, 1..4 threads, 1..2 QPs and workers, 16 ops per list, a 16-bit
// seed - 1).
bool SchedInput(const program::StressConfig& c, const program::OpLists& lists,
                const std::vector<uint8_t>& bytes, Program* p, std::string* error);

// The failure as the target prints it:
//   flowcheck: FAIL [<marker>] sched_fuzz: <detail>
//   <the scheduler's report, for its own kinds: deadlock, lockcheck, ...>
//   flowcheck: trace hash <hex>
std::string SchedFailureReport(const program::ControlledResult& r);

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_SCHED_PROGRAM_H_
