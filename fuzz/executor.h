// fuzz/executor.h: runs a decoded Program (fuzz/input_format.h) and reports
// the first step at which the model goes wrong. Shared by the fuzz targets,
// the reproduce command and the tests; it never aborts by itself.
//
//   Program p;
//   if (!DecodeAs(Format::kReserve, data, size, &p)) return -1;
//   ExecResult r = Execute(p, ExecOptions{});
//   if (!r.ok) { fputs(FailureReport(p, r.failure).c_str(), stderr); abort(); }
//
// Reserve and flow programs run on a core/oracle Lockstep (the model and the
// reference model side by side): after every call to the model, its return
// value and full state are compared with the oracle's, and CheckInvariants
// (core/invariants.h) runs at rest. One exception, on the fuzzing fast path
// only (no on_step): an op that makes many calls (fill, release_all,
// run_all_work) compares each call's return value at once and the state and
// invariants once, after its last call. A failing program is re-run with a
// trace, which checks after every call, so the report names the first
// failing call either way. Ops the kernel's callers could not issue
// in the current state are mapped deterministically to what such a caller
// does instead (docs/fuzz-format.md lists the rules), so every input is
// legal. Pure programs call core's pure functions and compare each result
// with the reference formulas (core/reference.h: NextGeneration,
// RegisterValue, ...) and with the spec's properties.
//
// Upstream divergences (CheckInvariants' kUpstreamDivergence: the KERNEL's
// own hazards, [R-3], [R-7]) are not failures by default: they are
// known findings, and a fuzzer stopping on them would never get past them.
// ExecOptions::strict (FLOWCHECK_FUZZ_STRICT=1 for the fuzz targets, --strict
// for reproduce) makes them failures, which shows the harness reaching them.
//
// Failure reports start with the line the self-test classifies:
//   flowcheck: FAIL [oracle] ...         model and oracle disagree
//   flowcheck: FAIL [invariant F1] ...   an invariant (or a pure property)
#ifndef FLOWCHECK_FUZZ_EXECUTOR_H_
#define FLOWCHECK_FUZZ_EXECUTOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/invariants.h"
#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {

// One call to the model (or one check-only step), as the trace shows it.
struct StepRecord {
  size_t op_index = 0;  // in Program::ops
  int sub = 0;          // n-th call of an op that makes several (fill, run_all_work)
  std::string call;     // the call made ("reserve_flow(last=-1)"), or "no call: <why>"
  bool called = false;
  int64_t model_ret = 0, oracle_ret = 0;
  uint64_t mask_before = 0, mask_after = 0;  // the model's flow_mask
  std::vector<std::string> new_divergences;  // upstream divergences that appeared
};

enum class FailLayer { kOracle, kInvariant };

struct Failure {
  FailLayer layer = FailLayer::kOracle;
  size_t op_index = 0;
  int sub = 0;
  std::string op;    // DescribeOp of the program op
  std::string call;  // the call that went wrong
  int64_t model_ret = 0, oracle_ret = 0;
  std::vector<std::string> diffs;              // model vs oracle (or reference)
  std::vector<InvariantViolation> violations;  // the ones that fail the step
  bool has_masks = false;
  uint64_t mask_before = 0, mask_after = 0;                // model
  uint64_t oracle_mask_before = 0, oracle_mask_after = 0;  // oracle / reference
};

struct ExecOptions {
  bool strict = false;  // upstream divergences fail too
  // Called after every step when set (reproduce's trace); unset when fuzzing,
  // so the fast path builds no strings.
  std::function<void(const StepRecord&)> on_step;
};

struct ExecResult {
  bool ok = true;
  Failure failure;             // valid when !ok
  size_t calls = 0;            // calls into the model
  size_t divergent_steps = 0;  // checked steps after which an upstream divergence held
};

// Runs `p` (any format). Deterministic: same program, same result.
ExecResult Execute(const Program& p, const ExecOptions& options);

// The pure format's executor (fuzz/pure_executor.cc); Execute dispatches to it.
ExecResult ExecutePure(const Program& p, const ExecOptions& options);

// The failure as the fuzz targets and reproduce print it: the classifier
// line, the op, both results, the flow_mask before/after as hex and as a
// 32-flow picture, every difference and every failing invariant.
std::string FailureReport(const Program& p, const Failure& f);

// "0x0000000f [####............................]": flow 0 leftmost.
std::string FormatMask(uint64_t mask);

// FLOWCHECK_FUZZ_STRICT=1 in the environment.
bool StrictFromEnv();

// Decode + execute + report, for the fuzz targets: returns -1 (reject) on an
// input of another format, 0 when it passes; on failure prints the report to
// stderr and aborts, as libFuzzer expects.
int FuzzOneInput(Format format, const uint8_t* data, size_t size);

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_EXECUTOR_H_
