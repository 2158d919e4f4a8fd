// fuzz/executor/result.h: what running a fuzz program produces: the trace
// records, the failure, the options that shape a run. Shared by every
// executor (fuzz/executor.h), the step runner that checks each call
// (step_runner.h) and the report (report.h).
#ifndef FLOWCHECK_FUZZ_EXECUTOR_RESULT_H_
#define FLOWCHECK_FUZZ_EXECUTOR_RESULT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/invariants.h"

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

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_EXECUTOR_RESULT_H_
