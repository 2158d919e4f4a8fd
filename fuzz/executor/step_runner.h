// fuzz/executor/step_runner.h: makes the calls of a fuzz program on a
// core/oracle Lockstep and checks after each one. The executor (which op
// becomes which calls: legalise.h) and any other target that drives a
// Lockstep share it, so every call is checked and traced the same way and a
// failure fills the same Failure (report.h prints it).
//
//   StepRunner run(program, options, PooledLockstep(program.num_qps, program.seed));
//   run.CheckInitial();                       // model and oracle agree before op #0
//   for (size_t i = 0; i < program.ops.size() && run.ok(); ++i) {
//     run.BeginOp(i);
//     run.Call({oracle::OpKind::kSetupHwFlow, qp});   // zero or more calls or NoCalls
//   }
//   ExecResult r = run.result();
//
// After every call: the model's and the oracle's return values and whole
// flow-layer states are compared, and CheckInvariants runs at rest. The one
// exception is the fuzzing fast path (ExecOptions::on_step unset) inside
// BeginBatch/EndBatch: each call's return value is compared at once, the
// state and the invariants once at EndBatch. With on_step set every call is
// checked and reported to on_step (the trace), and the failure carries the
// flow_mask before and after; the fast path formats nothing while it passes.
//
// Upstream divergences (the kernel's own hazards) fail a step only with
// ExecOptions::strict; otherwise they are counted (ExecResult::
// divergent_steps) and, in a trace, listed when they first appear.
//
// Threading: the calling thread holds no lock; Lockstep's contract.
#ifndef FLOWCHECK_FUZZ_EXECUTOR_STEP_RUNNER_H_
#define FLOWCHECK_FUZZ_EXECUTOR_STEP_RUNNER_H_

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "core/oracle/lockstep.h"
#include "fuzz/executor/result.h"
#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {

class StepRunner {
 public:
  // `p` names the op of a failure (DescribeOp of p.ops[i]); `p`, `options`
  // and `ls` must outlive the runner. `ls` is in its initial state.
  StepRunner(const Program& p, const ExecOptions& options, oracle::Lockstep& ls);

  // The initial states must already agree (a bug in the model's init code
  // shows here, as "(the initial state)"). Call once, before the first op.
  void CheckInitial();

  // The calls that follow belong to op `index` of the program.
  void BeginOp(size_t index);

  // One call to the model and the oracle, then the checks. Returns the
  // model's return value; on failure ok() turns false and the caller stops.
  // `instead`, if set, says why a legal caller makes this call rather than
  // the op's own (shown in the trace as "(instead: ...)").
  int64_t Call(const oracle::Op& op, const char* instead = nullptr);

  // A step that calls nothing (the op is not the harness's to make in this
  // state): model and oracle must still agree on the state it looked at.
  // `why` is formatted only for a trace or a failure.
  void NoCall(absl::FunctionRef<std::string()> why);

  // Brackets the calls of one op that makes many (fill, release_all,
  // run_all_work); see the header comment. Calls inside take no `instead`.
  void BeginBatch();
  void EndBatch();

  bool ok() const { return result_.ok; }
  // Calls and no-calls made so far for the current op.
  int steps_in_op() const { return sub_; }
  const oracle::FlowOracle& oracle() const { return ls_.oracle(); }
  const ExecResult& result() const { return result_; }

 private:
  uint64_t ModelMask();
  uint64_t OracleMask() const;
  int64_t BatchedCall(const oracle::Op& op);
  std::vector<InvariantViolation> Invariants(bool* divergent);
  // Records the step (trace) and, if it failed, the Failure. `describe()`
  // returns the call made (or "no call: ..."); it runs only for a trace or a
  // failure.
  void Check(const oracle::StepResult& r, bool check_invariants, uint64_t before,
             uint64_t oracle_before, absl::FunctionRef<std::string()> describe, bool called);

  const Program& p_;
  const ExecOptions& options_;
  oracle::Lockstep& ls_;
  uint64_t mask_ = 0;  // the model's flow_mask after the last step (trace only)
  size_t index_ = 0;
  int sub_ = 0;
  bool initial_ = false;
  bool batch_ = false;             // inside a multi-call op (BeginBatch)
  bool deferred_pending_ = false;  // a batched call whose state is unchecked
  oracle::StepResult deferred_;    // the last such call
  ExecResult result_;
  std::set<std::string> divergences_seen_, divergences_now_;  // trace only
};

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_EXECUTOR_STEP_RUNNER_H_
