// fuzz/executor.h: runs a decoded Program (fuzz/input_format.h) and reports
// the first step at which the model goes wrong. Shared by the fuzz targets
// (fuzz/executor/fuzz_one_input.h), the reproduce command and the tests; it
// never aborts by itself.
//
//   DecodeResult d = Decode(data, size);
//   ExecResult r = Execute(d.program, ExecOptions{});
//   if (!r.ok) { fputs(FailureReport(d.program, r.failure).c_str(), stderr); abort(); }
//
// Reserve and flow programs run on a pooled core/oracle Lockstep
// (executor/lockstep_pool.h): each op becomes the calls a legal kernel caller
// makes (executor/legalise.h), and after every call the model's return value
// and full state are compared with the oracle's and CheckInvariants
// (core/invariants.h) runs at rest (executor/step_runner.h; on the fuzzing
// fast path an op that makes many calls - fill, release_all, run_all_work -
// is checked once after its last call). A failing program is re-run with a
// trace, which checks after every call, so the report names the first
// failing call either way. Pure programs call core's pure functions and
// compare each result with the reference formulas (core/reference.h:
// NextGeneration, RegisterValue, ...) and the reference properties
// (fuzz/pure_executor.cc).
//
// Upstream divergences (CheckInvariants' kUpstreamDivergence: the KERNEL's
// own hazards, [R-3], [R-7]) are not failures by default: they are
// known findings, and a fuzzer stopping on them would never get past them.
// ExecOptions::strict (FLOWCHECK_FUZZ_STRICT=1 for the fuzz targets, --strict
// for reproduce) makes them failures, which shows the harness reaching them.
#ifndef FLOWCHECK_FUZZ_EXECUTOR_H_
#define FLOWCHECK_FUZZ_EXECUTOR_H_

#include "fuzz/executor/report.h"
#include "fuzz/executor/result.h"
#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {

// Runs `p` (any format). Deterministic: same program, same result.
ExecResult Execute(const Program& p, const ExecOptions& options);

// The pure format's executor (fuzz/pure_executor.cc); Execute dispatches to it.
ExecResult ExecutePure(const Program& p, const ExecOptions& options);

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_EXECUTOR_H_
