// fuzz/executor/sched_state.h: internal to the concurrent executor
// (sched_executor.h): the state one controlled execution of an 'S' program
// shares between its logical threads, the observer that checks each
// observed exp_lock critical section, and the end-of-execution checks.
//
// Oracle order. A FlowOracle applies an op at once; the model applies a
// caller's effects in one or more critical sections, and the observer runs
// in the last one (core/callers.h). The oracle is advanced at each observed
// section, in the order the schedule ran them, and its state compared,
// only while that order is the order of the effects: at a thread's observed
// section no OTHER thread may be inside an op whose effects can already be
// in the model but not yet in the oracle:
//   kGap         setup, clear, flush, resync, clear_resync: the flow-layer
//                function's own section comes first; dangerous until their
//                observed section, except while their QP's s_lock is free
//                (setup, clear, flush and clear_resync hold it from before
//                their effect to after their observer: free means the
//                effect has not begun; resync drops it in between);
//   kPostSection rarr_grant, rarr_release: they queue a wakeup after their
//                observed section; dangerous from it to the op's end (and
//                their own state is compared at the op's end);
//   kWants       set_wants_flow: one s_lock section, no observer; dangerous
//                throughout; applied to the oracle at its end if no work
//                (the only other reader of wants_flow) overlapped it;
//   kUnobserved  run_work, run_all_work: no observed section; dangerous
//                throughout; applied to the oracle at their end only if no
//                other op overlapped them at all;
//   kAtomic      reserve, release, rarr_wait: effect and observer in one
//                section; never dangerous.
// The first time the rule fails the oracle stops for the execution
// (SchedExecResult::oracle_off says where and why): the invariants go on.
//
// Harness bookkeeping is touched by every logical thread with no lock (the
// scheduler runs one at a time); TSan cannot know that, so each access runs
// in a HarnessScope (TSan ignores its reads and writes), which never spans a
// decision point. The checkers' reads inside it are not the code under test.
#ifndef FLOWCHECK_FUZZ_EXECUTOR_SCHED_STATE_H_
#define FLOWCHECK_FUZZ_EXECUTOR_SCHED_STATE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "common/sanitizers.h"
#include "core/callers.h"
#include "core/oracle/flow_oracle.h"
#include "core/oracle/lockstep.h"
#include "fuzz/executor/sched_executor.h"
#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {
namespace sched_exec {

// TSan ignores the reads and writes of the scope (no-op in other builds).
using HarnessScope = ::flowcheck::TsanIgnoreAccesses;

enum class Cls { kNone, kAtomic, kGap, kPostSection, kWants, kUnobserved };

struct ThreadState {
  bool busy = false;
  Cls cls = Cls::kNone;
  bool observed = false;   // its op's observed section ran
  size_t op_index = 0;     // in Program::ops
  rvt_qp* span_qp = nullptr;  // kGap: the QP whose s_lock spans effect and observer
  uint64_t seq_at_start = 0;
  bool others_busy_at_start = false;
  uint64_t work_seq_at_start = 0;
  bool work_busy_at_start = false;
  std::vector<int> bare;   // flows this thread reserved, ascending
  int grants[2] = {};      // RcvArray grants of its two QPs
};

struct State {
  const Program* p = nullptr;
  const SchedExecOptions* options = nullptr;
  SchedExecResult* r = nullptr;
  oracle::Lockstep* ls = nullptr;
  hfi1_ctxtdata* rcd = nullptr;
  std::vector<rvt_qp*> qps;
  oracle::FlowOracle oracle;
  std::vector<ThreadState> th;
  unsigned long bare_mask = 0;  // the harness's flows (bookkeeping under exp_lock)
  bool in_sync = true;
  // The end's checks ran to completion: every logical thread had ended, so
  // no lock is held and the Lockstep may serve the next execution.
  bool clean_end = false;
  uint64_t op_seq = 0;          // bumped at every op's begin and end
  uint64_t work_seq = 0;        // bumped at every kUnobserved op's begin and end
  bool waited[8] = {};          // QP i got -EAGAIN from a setup
  bool flushed_waiter = false;  // a QP that had waited was flushed
  bool bare_release_with_waiters = false;  // a bare release left flow_queue non-empty
  bool waiter_gave_up = false;  // set_wants_flow(false) on a QP that had waited
  std::set<std::string> divergences_seen;

  explicit State(const oracle::FlowOracle& o) : oracle(o) {}

  int QpIndex(const rvt_qp* qp) const;
  // Appends an event (counted always, formatted only when tracing).
  void Event(int thread, const std::function<std::string()>& text);
  // Records the first failure (later ones are ignored).
  void SetFail(const std::string& kind, const std::string& line, const std::string& report);
  // Whether another thread than `me` is in an op whose effects may be in
  // the model but not in the oracle (see the header comment); *why says who.
  bool OthersDangerous(int me, std::string* why) const;
  void OracleOff(const std::string& why);
  // `where` (e.g. "[t1] op #3 setup_hw_flow(qp#2), section of ...") names
  // the place of a failure. It is formatted only when something fails:
  // formatting it at every section was a tenth of sched_fuzz's time.
  using Where = absl::FunctionRef<std::string()>;
  // Judges CheckInvariants' findings: violations fail, upstream divergences
  // are noted (and fail with strict).
  void JudgeInvariants(const std::vector<InvariantViolation>& v, Where where);
  // Oracle vs model state now (exp_lock held, others not dangerous).
  void CompareState(hfi1_ctxtdata* rcd, Where where) ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd->exp_lock);
  // The checks after an op without a usable observed section (kPostSection,
  // kUnobserved): takes exp_lock (decision points).
  void CheckAfterOp(int thread, Where where);
  // The end-of-execution drain and checks, on the controller.
  void Final();
};

// The observer of one call: applies the section's op to the oracle (when
// the order allows) and runs the checks, under the caller's locks; then a
// decision point (sched::Point), still inside the section.
class SectionObserver : public CallerObserver {
 public:
  SectionObserver(State* st, int thread) : st_(st), thread_(thread) {}
  void UnderLock(hfi1_ctxtdata* rcd, const CallerEvent& event) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd->exp_lock);

 private:
  void Check(hfi1_ctxtdata* rcd, const CallerEvent& event)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd->exp_lock);
  State* const st_;
  const int thread_;
};

}  // namespace sched_exec
}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_EXECUTOR_SCHED_STATE_H_
