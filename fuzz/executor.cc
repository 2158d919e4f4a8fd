// fuzz/executor.cc: Execute (see executor.h): a program's ops through the
// legaliser and the step runner on a pooled Lockstep, and the traced re-run
// that fills in a failure found on the fast path.
#include "fuzz/executor.h"

#include <cstdio>
#include <cstdlib>

#include "fuzz/executor/legalise.h"
#include "fuzz/executor/lockstep_pool.h"
#include "fuzz/executor/step_runner.h"

namespace flowcheck {
namespace fuzz {
namespace {

ExecResult RunOnce(const Program& p, const ExecOptions& options) {
  StepRunner run(p, options, PooledLockstep(p.num_qps, p.seed));
  Legaliser legalise(run);
  if (!p.ops.empty()) run.CheckInitial();
  for (size_t i = 0; i < p.ops.size() && run.ok(); ++i) {
    run.BeginOp(i);
    legalise.Run(p.format, p.ops[i]);
  }
  return run.result();
}

}  // namespace

ExecResult Execute(const Program& p, const ExecOptions& options) {
  if (p.format == Format::kPure) return ExecutePure(p, options);
  ExecResult r = RunOnce(p, options);
  if (r.ok || options.on_step) return r;
  // Found on the fast path: run again with a trace to get the failing step's
  // flow_mask before and after. Same program, same failure.
  ExecOptions traced = options;
  traced.on_step = [](const StepRecord&) {};
  ExecResult again = RunOnce(p, traced);
  // The trace checks after every call where the fast path checked a
  // multi-call op once at its end: it fails at the same call, or earlier.
  const bool later =
      again.failure.op_index > r.failure.op_index ||
      (again.failure.op_index == r.failure.op_index && again.failure.sub > r.failure.sub);
  if (again.ok || later) {
    std::fprintf(stderr,
                 "fuzz executor: the traced re-run of a failing program did not fail "
                 "the same way: the run is not deterministic (a harness bug)\n");
    std::abort();
  }
  return again;
}

}  // namespace fuzz
}  // namespace flowcheck
