// core/oracle/lockstep.h: runs the model and the oracle side by side, one
// operation at a time, and reports every disagreement. The executor the fuzz
// targets and the sequential stress checks are built on.
//
//   flowcheck::oracle::Lockstep ls(/*num_qps=*/4, /*seed=*/1234);
//   StepResult r = ls.Step({OpKind::kSetupHwFlow, /*qp=*/2});
//   if (!r.ok()) { puts(r.ToString().c_str()); abort(); }
//   auto v = ls.CheckInvariants();   // at rest, exp_lock taken inside
//
// Owns one device with one kernel context, `num_qps` QPs (qpn 1..n, all on
// that context) and a work queue that only Step({kRunWork}) drains, so every
// run is deterministic: same seed + same ops = same states. Each Step calls
// the model through core/callers.h from the calling thread (which must hold no
// lock), then the oracle, then compares both return values and full states
// (compare.h).
#ifndef FLOWCHECK_CORE_ORACLE_LOCKSTEP_H_
#define FLOWCHECK_CORE_ORACLE_LOCKSTEP_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/hfi1.h"
#include "core/invariants.h"
#include "core/oracle/flow_oracle.h"
#include "core/oracle/snapshot.h"
#include "core/qp.h"
#include "core/workqueue.h"

namespace flowcheck {
namespace oracle {

enum class OpKind {
  kSetupHwFlow,   // caller_setup_hw_flow(qp)             -> 0 / -EAGAIN
  kClearHwFlow,   // caller_clear_hw_flow(qp)             -> 0
  kFlushWait,     // caller_flush_wait(qp)                -> 0
  kRarrWait,      // caller_rarr_wait(qp)                 -> 0
  kRarrGrant,     // caller_rarr_grant(qp)                -> 0 (-EAGAIN: queued)
  kRarrRelease,   // caller_rarr_release(qp)              -> 0
  kSetWantsFlow,  // caller_set_wants_flow(qp, arg != 0)  -> 0
  kResync,        // caller_resync(qp, psn = arg)         -> 1 accepted / 0
  kClearResync,   // caller_clear_resync(qp)              -> 0
  kReserveFlow,   // caller_reserve_flow(rcd, last = arg) -> flow / -EAGAIN
  kReleaseFlow,   // caller_release_flow(rcd, idx = arg)  -> 0; arg in 0..31
  kRunWork,       // workqueue RunOne()                   -> 1 ran / 0 idle
};

struct Op {
  OpKind kind;
  int qp = 0;       // 0..num_qps-1 (ignored by kReserveFlow/kReleaseFlow/kRunWork)
  int64_t arg = 0;  // see OpKind
};

// "setup_hw_flow(qp#2)", "reserve_flow(last=-1)", ...
std::string OpToString(const Op& op);
const char* OpKindName(OpKind kind);

struct StepResult {
  Op op;
  int64_t model_ret = 0;
  int64_t oracle_ret = 0;
  std::vector<std::string> diffs;  // state differences after the op
  bool ok() const { return model_ret == oracle_ret && diffs.empty(); }
  // The op, both results and every difference, one per line.
  std::string ToString() const;
};

class Lockstep {
 public:
  // A second implementation of the flow layer, driven with the same ops on a
  // world of its own and compared with this Lockstep's model after them: the
  // differential target (upstream/diff/: core's model beside the kernel's
  // text). Same threading contract as Step.
  class Mirror {
   public:
    virtual ~Mirror() = default;
    // What the mirror is, for its lines in a report ("core's model").
    virtual const char* name() const = 0;
    // As Reset: the mirror's world as fresh as a new one made with `seed`.
    virtual void Reset(uint64_t seed) = 0;
    // Makes `op` on the mirror's world; returns what it returned (Step's
    // model_ret convention).
    virtual int64_t Step(const Op& op) = 0;
    // Appends every difference between the mirror's state and `model`'s
    // (Lockstep's own model, at rest), one line each.
    virtual void Compare(Lockstep& model, std::vector<std::string>* diffs) = 0;
  };

  Lockstep(int num_qps, uint64_t seed);
  ~Lockstep();
  Lockstep(const Lockstep&) = delete;
  Lockstep& operator=(const Lockstep&) = delete;

  // Returns model and oracle to the state of a fresh Lockstep(num_qps(),
  // seed), reusing the objects: construction is far dearer than a reset
  // (docs/fuzz.md, "Speed"), and a fuzz target resets once per input. Same
  // contract as Step (no lock held, no work running); pending work items are
  // cancelled, not run. The model is re-initialised through core's own init
  // functions (hfi1_kern_init_ctxt_generations, hfi1_qp_priv_init), so a bug
  // in those shows after a reset as it does after construction.
  void Reset(uint64_t seed);

  // Runs `op` on both and compares. An op outside its domain (qp or release
  // index out of range) is a caller bug and aborts with a message.
  // With compare_state = false only the return values are compared (diffs
  // stays empty): for a caller that makes several calls as one operation and
  // compares the state once after the last (Compare()).
  StepResult Step(const Op& op, bool compare_state = true);

  // Full state comparison now (Step already does it after each op): every
  // difference CompareWithModel describes. Decided first on two snapshots
  // (snapshot.h) without allocating; CompareWithModel runs only when they
  // differ (or do not fit). Snapshots that differ where CompareWithModel
  // sees no difference are a harness bug and abort with a message.
  // With a mirror (set_mirror) the mirror's differences follow, each return
  // value it disagreed on since the last Compare first.
  std::vector<std::string> Compare();

  // Installs `m` (not owned; nullptr removes it): from now on Step makes each
  // op on it right after the model, Compare adds its differences (so a Step
  // with compare_state fails on them) and Reset resets it.
  void set_mirror(Mirror* m) {
    mirror_ = m;
    mirror_diffs_.clear();
  }

  // CheckInvariants on the model at rest, with the flows the harness
  // reserved (kReserveFlow) declared.
  std::vector<InvariantViolation> CheckInvariants();
  // The same checks, reduced to which severities they report, without
  // formatting or allocating (CheckInvariantsVerdict in core/invariants.h):
  // for the fast path that needs the list only when something is found.
  InvariantVerdict CheckInvariantsVerdict();

  int num_qps() const { return static_cast<int>(qps_.size()); }
  rvt_qp* qp(int i) const { return qps_[i]; }
  hfi1_ctxtdata* rcd() const { return rcd_; }
  workqueue_struct& wq() { return wq_; }
  const FlowOracle& oracle() const { return *oracle_; }

 private:
  void MakeOracle();
  std::vector<std::string> CompareWithOracle();

  // Scratch for Compare (members: too big for a fuzzer's hot stack frame).
  StateSnapshot model_snapshot_, oracle_snapshot_;
  workqueue_struct wq_;
  std::unique_ptr<hfi1_devdata> dd_;
  hfi1_ctxtdata* rcd_ = nullptr;
  std::vector<rvt_qp*> qps_;
  std::unique_ptr<FlowOracle> oracle_;
  Mirror* mirror_ = nullptr;
  std::vector<std::string> mirror_diffs_;  // return values, until Compare
};

}  // namespace oracle
}  // namespace flowcheck

#endif  // FLOWCHECK_CORE_ORACLE_LOCKSTEP_H_
