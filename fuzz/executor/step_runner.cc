// fuzz/executor/step_runner.cc: see step_runner.h.
#include "fuzz/executor/step_runner.h"

#include <utility>

#include "common/strings.h"
#include "lockcheck/spinlock.h"

namespace flowcheck {
namespace fuzz {

using oracle::Op;
using oracle::StepResult;

StepRunner::StepRunner(const Program& p, const ExecOptions& options, oracle::Lockstep& ls)
    : p_(p), options_(options), ls_(ls) {
  mask_ = options_.on_step ? ModelMask() : 0;
}

uint64_t StepRunner::ModelMask() {
  hfi1_ctxtdata* rcd = ls_.rcd();
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  const uint64_t m = rcd->flow_mask;
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  return m;
}

uint64_t StepRunner::OracleMask() const {
  uint64_t m = 0;
  for (int f = 0; f < oracle::kNumFlows; ++f) {
    if (oracle().reserved(f)) m |= 1ull << f;
  }
  return m;
}

void StepRunner::BeginOp(size_t index) {
  index_ = index;
  sub_ = 0;
}

int64_t StepRunner::Call(const Op& op, const char* instead) {
  if (batch_ && !options_.on_step) return BatchedCall(op);
  const uint64_t before = mask_;
  const uint64_t oracle_before = options_.on_step ? OracleMask() : 0;
  StepResult r = ls_.Step(op, /*compare_state=*/true);
  ++result_.calls;
  if (options_.on_step) mask_ = ModelMask();
  Check(
      r, /*check_invariants=*/true, before, oracle_before,
      [&op, instead] {
        std::string call = oracle::OpToString(op);
        if (instead != nullptr) call += flowcheck::StrFormat(" (instead: %s)", instead);
        return call;
      },
      true);
  ++sub_;
  return r.model_ret;
}

// On the fuzzing fast path, a multi-call op compares each call's return
// value with the oracle's at once and the full state and the invariants once
// after the op's last call (the per-call checks cost ~20x the call). A trace
// checks after every call, and a program that fails is re-run with one
// (Execute), so its report still names the first failing call.
void StepRunner::BeginBatch() { batch_ = true; }

int64_t StepRunner::BatchedCall(const Op& op) {
  StepResult r = ls_.Step(op, /*compare_state=*/false);
  ++result_.calls;
  if (r.model_ret != r.oracle_ret) {
    Check(
        r, /*check_invariants=*/false, mask_, 0, [&op] { return oracle::OpToString(op); }, true);
  } else {
    deferred_ = r;
    deferred_pending_ = true;
  }
  ++sub_;
  return r.model_ret;
}

void StepRunner::EndBatch() {
  batch_ = false;
  if (!deferred_pending_ || !result_.ok) return;
  deferred_pending_ = false;
  deferred_.diffs = ls_.Compare();
  --sub_;  // reported as the op's last call, whose state this is
  const Op op = deferred_.op;
  Check(
      deferred_, /*check_invariants=*/true, mask_, 0, [&op] { return oracle::OpToString(op); },
      true);
  ++sub_;
}

void StepRunner::NoCall(absl::FunctionRef<std::string()> why) {
  StepResult r;
  r.diffs = ls_.Compare();
  Check(
      r, /*check_invariants=*/false, mask_, options_.on_step ? OracleMask() : 0,
      [&why] { return "no call: " + why(); }, false);
  ++sub_;
}

void StepRunner::CheckInitial() {
  StepResult r;
  r.diffs = ls_.Compare();
  initial_ = true;
  Check(
      r, /*check_invariants=*/true, mask_, options_.on_step ? OracleMask() : 0,
      [] { return std::string("no call: the state before the first op"); }, false);
  initial_ = false;
}

// The invariants after a step. The fuzzing fast path asks for the verdict
// only (same checks, nothing formatted) and runs the full checker for the
// list when it has to report it: a failing step, or a trace.
std::vector<InvariantViolation> StepRunner::Invariants(bool* divergent) {
  if (!options_.on_step) {
    const InvariantVerdict verdict = ls_.CheckInvariantsVerdict();
    *divergent = verdict.upstream_divergence;
    if (!verdict.violation && !(options_.strict && verdict.upstream_divergence)) return {};
  }
  std::vector<InvariantViolation> v = ls_.CheckInvariants();
  *divergent = HasSeverity(v, Severity::kUpstreamDivergence);
  return v;
}

void StepRunner::Check(const StepResult& r, bool check_invariants, uint64_t before,
                       uint64_t oracle_before, absl::FunctionRef<std::string()> describe,
                       bool called) {
  bool divergent = false;
  std::vector<InvariantViolation> v;
  if (check_invariants) v = Invariants(&divergent);
  std::vector<InvariantViolation> failing;
  for (InvariantViolation& x : v) {
    const bool upstream = x.severity == Severity::kUpstreamDivergence;
    if (!upstream || options_.strict)
      failing.push_back(std::move(x));
    else if (options_.on_step)
      divergences_now_.insert(x.ToString());
  }
  if (divergent) ++result_.divergent_steps;
  std::string call;
  if (options_.on_step || !r.ok() || !failing.empty()) call = describe();
  if (options_.on_step && !initial_) {
    StepRecord rec;
    rec.op_index = index_;
    rec.sub = sub_;
    rec.call = call;
    rec.called = called;
    rec.model_ret = r.model_ret;
    rec.oracle_ret = r.oracle_ret;
    rec.mask_before = before;
    rec.mask_after = mask_;
    for (const std::string& d : divergences_now_) {
      if (!divergences_seen_.count(d)) rec.new_divergences.push_back(d);
    }
    divergences_seen_ = std::move(divergences_now_);
    divergences_now_.clear();
    options_.on_step(rec);
  }
  if (r.ok() && failing.empty()) return;
  result_.ok = false;
  Failure& f = result_.failure;
  f.layer = r.ok() ? FailLayer::kInvariant : FailLayer::kOracle;
  f.op_index = index_;
  f.sub = sub_;
  f.op = initial_ ? "(the initial state)" : DescribeOp(p_.format, p_.ops[index_]);
  f.call = call;
  f.model_ret = r.model_ret;
  f.oracle_ret = r.oracle_ret;
  f.diffs = r.diffs;
  f.violations = std::move(failing);
  // The fast path tracks no masks; Execute re-runs a failing program with
  // tracing to report them (the run is deterministic).
  f.has_masks = options_.on_step != nullptr;
  f.mask_before = before;
  f.mask_after = mask_;
  f.oracle_mask_before = oracle_before;
  f.oracle_mask_after = f.has_masks ? OracleMask() : 0;
}

}  // namespace fuzz
}  // namespace flowcheck
