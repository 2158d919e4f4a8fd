// fuzz/executor/legalise.h: what each reserve and flow op becomes, as calls
// a kernel caller could make in the current state (docs/fuzz-format.md lists
// the rules). An op the kernel's callers could not issue is mapped
// deterministically to what such a caller does instead, so every input is
// legal:
//   RcvArray ops before the QP owns a flow run setup_hw_flow (the driver sets
//   the flow up first); a grant with another QP ahead on rarr_queue queues
//   instead; a grant with the request's flow ring full, a release of nothing,
//   a release of a flow the harness does not own are checked no-calls.
//
//   Legaliser legalise(run);                 // one per program: it tracks grants
//   legalise.Run(p.format, p.ops[i]);        // after run.BeginOp(i)
#ifndef FLOWCHECK_FUZZ_EXECUTOR_LEGALISE_H_
#define FLOWCHECK_FUZZ_EXECUTOR_LEGALISE_H_

#include <cstdint>

#include "fuzz/executor/step_runner.h"
#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {

// The PSN a RESYNC op sends (docs/fuzz-format.md, "RESYNC PSN"): `g` is the
// QP's flow_state.generation, `flow_generation` the generation of flow
// b % 32; `sel % 8` is the choice. Shared by the sequential and the
// concurrent executor (sched_fuzz).
uint32_t ResyncPsn(uint32_t g, uint32_t flow_generation, uint8_t sel, int64_t b);

class Legaliser {
 public:
  // `run` must outlive the Legaliser.
  explicit Legaliser(StepRunner& run) : run_(run) {}

  // Makes op's calls (or no-calls) through the runner. `format` is kReserve
  // or kFlow (pure programs run no Lockstep: fuzz/pure_executor.cc).
  void Run(Format format, const FuzzOp& op);

 private:
  void RunReserveOp(const FuzzOp& op);
  void RunFlowOp(const FuzzOp& op);
  // The k-th flow (mod their number) the harness reserved, or -1 if none.
  int HarnessFlow(int64_t k) const;
  // One op of many calls (fill, run_all_work): `op` up to max_calls times,
  // as one batch, stopping after the call whose return value last() accepts.
  void Repeat(const oracle::Op& op, int max_calls, bool (*last)(int64_t ret));
  void ReleaseOwned(int64_t k);
  void ReleaseIndex(int64_t idx);
  uint32_t ResyncPsn(int qp, uint8_t sel, int64_t b) const;

  StepRunner& run_;
  int grants_[kMaxFlowQps] = {};  // RcvArray segments each QP holds (rarr_grant - rarr_release)
};

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_EXECUTOR_LEGALISE_H_
