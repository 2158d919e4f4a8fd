// core/oracle/lockstep.cc: see lockstep.h.
#include "core/oracle/lockstep.h"

#include <array>
#include <cstdio>
#include <cstdlib>

#include "common/strings.h"
#include "core/callers.h"
#include "core/oracle/compare.h"
#include "core/oracle/world_reset.h"
#include "core/tid_rdma.h"
#include "lockcheck/spinlock.h"

namespace flowcheck {
namespace oracle {

const char* OpKindName(OpKind kind) {
  switch (kind) {
    case OpKind::kSetupHwFlow: return "setup_hw_flow";
    case OpKind::kClearHwFlow: return "clear_hw_flow";
    case OpKind::kFlushWait: return "flush_wait";
    case OpKind::kRarrWait: return "rarr_wait";
    case OpKind::kRarrGrant: return "rarr_grant";
    case OpKind::kRarrRelease: return "rarr_release";
    case OpKind::kSetWantsFlow: return "set_wants_flow";
    case OpKind::kResync: return "resync";
    case OpKind::kClearResync: return "clear_resync";
    case OpKind::kReserveFlow: return "reserve_flow";
    case OpKind::kReleaseFlow: return "release_flow";
    case OpKind::kRunWork: return "run_work";
  }
  return "?";
}

std::string OpToString(const Op& op) {
  switch (op.kind) {
    case OpKind::kSetWantsFlow:
      return flowcheck::StrFormat("%s(qp#%d, %s)", OpKindName(op.kind), op.qp,
                                  op.arg != 0 ? "true" : "false");
    case OpKind::kResync:
      return flowcheck::StrFormat("%s(qp#%d, psn=0x%" PRIx64 ")", OpKindName(op.kind), op.qp,
                                  op.arg);
    case OpKind::kReserveFlow:
      return flowcheck::StrFormat("%s(last=%" PRId64 ")", OpKindName(op.kind), op.arg);
    case OpKind::kReleaseFlow:
      return flowcheck::StrFormat("%s(idx=%" PRId64 ")", OpKindName(op.kind), op.arg);
    case OpKind::kRunWork:
      return "run_work()";
    default:
      return flowcheck::StrFormat("%s(qp#%d)", OpKindName(op.kind), op.qp);
  }
}

std::string StepResult::ToString() const {
  std::string s = flowcheck::StrFormat("%s: model returned %" PRId64 ", oracle %" PRId64 "%s\n",
                                       OpToString(op).c_str(), model_ret, oracle_ret,
                                       model_ret == oracle_ret ? "" : "  <-- differ");
  for (const std::string& d : diffs) s += "  " + d + "\n";
  return s;
}

Lockstep::Lockstep(int num_qps, uint64_t seed) : wq_("lockstep") {
  dd_ = hfi1_model_alloc_devdata(1, &wq_, seed);
  rcd_ = dd_->rcd[0].get();
  for (int i = 0; i < num_qps; ++i) {
    qps_.push_back(hfi1_model_create_qp(dd_.get(), static_cast<u32>(i + 1)));
  }
  MakeOracle();
}

void Lockstep::MakeOracle() {
  std::array<uint32_t, kNumFlows> gens;
  unsigned long flags;
  spin_lock_irqsave(&rcd_->exp_lock, flags);
  for (int f = 0; f < kNumFlows; ++f) gens[f] = rcd_->flows[f].generation;
  spin_unlock_irqrestore(&rcd_->exp_lock, flags);
  if (oracle_ != nullptr) {
    oracle_->Reset(gens);
    return;
  }
  std::vector<uint32_t> qpns;
  for (rvt_qp* qp : qps_) qpns.push_back(qp->qp_num);
  oracle_ = std::make_unique<FlowOracle>(gens, qpns);
}

void Lockstep::Reset(uint64_t seed) {
  ResetWorld(dd_.get(), rcd_, qps_, seed);
  if (mirror_ != nullptr) mirror_->Reset(seed);
  mirror_diffs_.clear();
  MakeOracle();
}

Lockstep::~Lockstep() {
  // Teardown flushes, releases flows and cancels work; whatever references it
  // reports as left over are the model's business (CheckInvariants W3).
  for (rvt_qp* qp : qps_) hfi1_model_teardown_qp(qp);
  wq_.Stop();
  for (rvt_qp* qp : qps_) hfi1_model_free_qp(qp);
}

StepResult Lockstep::Step(const Op& op, bool compare_state) {
  const bool uses_qp = op.kind != OpKind::kReserveFlow && op.kind != OpKind::kReleaseFlow &&
                       op.kind != OpKind::kRunWork;
  if ((uses_qp && (op.qp < 0 || op.qp >= num_qps())) ||
      (op.kind == OpKind::kReleaseFlow && (op.arg < 0 || op.arg >= kNumFlows))) {
    std::fprintf(stderr, "Lockstep: op out of domain: %s\n", OpToString(op).c_str());
    std::abort();
  }
  StepResult r;
  r.op = op;
  rvt_qp* qp = uses_qp ? qps_[op.qp] : nullptr;
  FlowOracle& o = *oracle_;
  switch (op.kind) {
    case OpKind::kSetupHwFlow:
      r.model_ret = caller_setup_hw_flow(qp);
      r.oracle_ret = o.SetupHwFlow(op.qp);
      break;
    case OpKind::kClearHwFlow:
      caller_clear_hw_flow(qp);
      o.ClearHwFlow(op.qp);
      break;
    case OpKind::kFlushWait:
      caller_flush_wait(qp);
      o.FlushWait(op.qp);
      break;
    case OpKind::kRarrWait:
      caller_rarr_wait(qp);
      o.RarrWait(op.qp);
      break;
    case OpKind::kRarrGrant:
      r.model_ret = caller_rarr_grant(qp);
      r.oracle_ret = o.RarrGrant(op.qp);
      break;
    case OpKind::kRarrRelease:
      caller_rarr_release(qp);
      o.RarrRelease(op.qp);
      break;
    case OpKind::kSetWantsFlow:
      caller_set_wants_flow(qp, op.arg != 0);
      o.SetWantsFlow(op.qp, op.arg != 0);
      break;
    case OpKind::kResync:
      r.model_ret = caller_resync(qp, static_cast<u32>(op.arg));
      r.oracle_ret = o.Resync(op.qp, static_cast<uint32_t>(op.arg));
      break;
    case OpKind::kClearResync:
      caller_clear_resync(qp);
      o.ClearResync(op.qp);
      break;
    case OpKind::kReserveFlow:
      r.model_ret = caller_reserve_flow(rcd_, static_cast<int>(op.arg));
      r.oracle_ret = o.ReserveFlow(static_cast<int>(op.arg));
      break;
    case OpKind::kReleaseFlow:
      caller_release_flow(rcd_, static_cast<int>(op.arg));
      o.ReleaseFlow(static_cast<int>(op.arg));
      break;
    case OpKind::kRunWork:
      r.model_ret = wq_.RunOne();
      r.oracle_ret = o.RunOneWork();
      break;
  }
  if (mirror_ != nullptr) {
    const int64_t mirror_ret = mirror_->Step(op);
    if (mirror_ret != r.model_ret) {
      mirror_diffs_.push_back(flowcheck::StrFormat("%s: returned %" PRId64 ", %s returned %" PRId64,
                                                   OpToString(op).c_str(), r.model_ret,
                                                   mirror_->name(), mirror_ret));
    }
  }
  if (compare_state) r.diffs = Compare();
  return r;
}

std::vector<std::string> Lockstep::Compare() {
  std::vector<std::string> diffs = CompareWithOracle();
  if (mirror_ != nullptr) {
    diffs.insert(diffs.end(), mirror_diffs_.begin(), mirror_diffs_.end());
    mirror_diffs_.clear();
    mirror_->Compare(*this, &diffs);
  }
  return diffs;
}

std::vector<std::string> Lockstep::CompareWithOracle() {
  unsigned long flags;
  spin_lock_irqsave(&rcd_->exp_lock, flags);
  const bool fit = SnapshotModel(*rcd_, qps_, wq_, &model_snapshot_) &&
                   SnapshotOracle(*oracle_, &oracle_snapshot_);
  if (fit && SameState(model_snapshot_, oracle_snapshot_)) {
    spin_unlock_irqrestore(&rcd_->exp_lock, flags);
    return {};
  }
  std::vector<std::string> diffs = CompareWithModel(*oracle_, *rcd_, qps_, wq_);
  spin_unlock_irqrestore(&rcd_->exp_lock, flags);
  if (fit && diffs.empty()) {
    std::fprintf(stderr,
                 "Lockstep: the state snapshots differ but CompareWithModel finds no "
                 "difference: snapshot.cc and compare.cc read different fields (a harness "
                 "bug)\n");
    std::abort();
  }
  return diffs;
}

std::vector<InvariantViolation> Lockstep::CheckInvariants() {
  CheckOptions options;
  options.quiescent = true;
  options.harness_reserved_flows = oracle_->harness_flows();
  unsigned long flags;
  spin_lock_irqsave(&rcd_->exp_lock, flags);
  std::vector<InvariantViolation> v = flowcheck::CheckInvariants(*rcd_, qps_, options);
  spin_unlock_irqrestore(&rcd_->exp_lock, flags);
  return v;
}

InvariantVerdict Lockstep::CheckInvariantsVerdict() {
  CheckOptions options;
  options.quiescent = true;
  options.harness_reserved_flows = oracle_->harness_flows();
  unsigned long flags;
  spin_lock_irqsave(&rcd_->exp_lock, flags);
  const InvariantVerdict v = flowcheck::CheckInvariantsVerdict(*rcd_, qps_, options);
  spin_unlock_irqrestore(&rcd_->exp_lock, flags);
  return v;
}

}  // namespace oracle
}  // namespace flowcheck
