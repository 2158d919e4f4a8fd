// core/invariants.cc: CheckInvariants and CheckFlowBitmap (see invariants.h).
#include "core/invariants.h"

#include "absl/container/inlined_vector.h"
#include "core/invariants_internal.h"
#include "lockcheck/lockdep.h"

namespace flowcheck {

const char* SeverityName(Severity s) {
  return s == Severity::kViolation ? "violation" : "upstream divergence";
}

std::string InvariantViolation::ToString() const {
  return id + " " + SeverityName(severity) + ": " + detail;
}

namespace {

// A QP of another context is a caller error: its state says nothing about
// `rcd`, and checking it would produce misleading findings.
absl::InlinedVector<rvt_qp*, 16> OwnQps(const hfi1_ctxtdata& rcd,
                                        absl::Span<rvt_qp* const> qps,
                                        internal::Collector* c) {
  absl::InlinedVector<rvt_qp*, 16> own;  // no allocation for up to 16 QPs
  for (rvt_qp* qp : qps) {
    if (qp->priv->rcd == &rcd) {
      own.push_back(qp);
    } else {
      c->Add(Invariant::kArg, Severity::kViolation,
             "qp %u is mapped to context %u, not %u: not checked", qp->qp_num,
             qp->priv->rcd->ctxt, rcd.ctxt);
    }
  }
  return own;
}

}  // namespace

std::vector<InvariantViolation> CheckInvariants(const hfi1_ctxtdata& rcd,
                                                absl::Span<rvt_qp* const> qps,
                                                const CheckOptions& options) {
  lockdep_assert_held(&rcd.exp_lock);
  std::vector<InvariantViolation> out;
  internal::Collector c(&out);
  absl::InlinedVector<rvt_qp*, 16> own = OwnQps(rcd, qps, &c);
  internal::CheckFlows(rcd, own, options, /*bitmap_only=*/false, &c);
  internal::CheckWaitQueues(rcd, own, options, &c);
  internal::CheckRcvArray(rcd, own, options, &c);
  return out;
}

InvariantVerdict CheckInvariantsVerdict(const hfi1_ctxtdata& rcd,
                                        absl::Span<rvt_qp* const> qps,
                                        const CheckOptions& options) {
  lockdep_assert_held(&rcd.exp_lock);
  internal::Collector c(nullptr);
  absl::InlinedVector<rvt_qp*, 16> own = OwnQps(rcd, qps, &c);
  internal::CheckFlows(rcd, own, options, /*bitmap_only=*/false, &c);
  internal::CheckWaitQueues(rcd, own, options, &c);
  internal::CheckRcvArray(rcd, own, options, &c);
  return c.verdict();
}

InvariantVerdict VerdictOf(const std::vector<InvariantViolation>& v) {
  return {HasSeverity(v, Severity::kViolation), HasSeverity(v, Severity::kUpstreamDivergence)};
}

std::vector<InvariantViolation> CheckFlowBitmap(const hfi1_ctxtdata& rcd,
                                                absl::Span<rvt_qp* const> qps,
                                                unsigned long harness_reserved_flows) {
  lockdep_assert_held(&rcd.exp_lock);
  std::vector<InvariantViolation> out;
  internal::Collector c(&out);
  CheckOptions options;
  options.harness_reserved_flows = harness_reserved_flows;
  absl::InlinedVector<rvt_qp*, 16> own = OwnQps(rcd, qps, &c);
  internal::CheckFlows(rcd, own, options, /*bitmap_only=*/true, &c);
  return out;
}

bool HasSeverity(const std::vector<InvariantViolation>& v, Severity s) {
  for (const InvariantViolation& x : v) {
    if (x.severity == s) return true;
  }
  return false;
}

std::vector<InvariantViolation> OnlySeverity(const std::vector<InvariantViolation>& v,
                                             Severity s) {
  std::vector<InvariantViolation> out;
  for (const InvariantViolation& x : v) {
    if (x.severity == s) out.push_back(x);
  }
  return out;
}

std::string FormatViolations(const std::vector<InvariantViolation>& v) {
  std::string s;
  for (const InvariantViolation& x : v) s += x.ToString() + "\n";
  return s;
}

}  // namespace flowcheck
