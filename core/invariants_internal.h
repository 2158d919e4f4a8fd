// core/invariants_internal.h: shared by invariants_flow.cc and
// invariants_wait.cc; not part of the API.
#ifndef FLOWCHECK_CORE_INVARIANTS_INTERNAL_H_
#define FLOWCHECK_CORE_INVARIANTS_INTERNAL_H_

#include <cstdarg>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "common/strings.h"
#include "core/hfi1.h"
#include "core/invariants.h"
#include "core/qp.h"

namespace flowcheck {
namespace internal {

// Where the checks report. The same checks run for CheckInvariants (every
// report formatted into *out) and for CheckInvariantsVerdict (out == nullptr:
// only the severities are kept, nothing is formatted or allocated), so the
// verdict cannot disagree with the list.
class Collector {
 public:
  explicit Collector(std::vector<InvariantViolation>* out) : out_(out) {}
  // fmt and the arguments as printf takes them (checked by the compiler).
  void Add(Invariant id, Severity s, const char* fmt, ...) __attribute__((format(printf, 4, 5))) {
    (s == Severity::kViolation ? verdict_.violation : verdict_.upstream_divergence) = true;
    if (out_ != nullptr) {
      va_list args;
      va_start(args, fmt);
      out_->push_back(InvariantViolation{IdOf(kInvariantIds, id), s, StrFormatV(fmt, args)});
      va_end(args);
    }
  }
  // Whether reports are formatted: a check may skip building a description
  // argument (a string) when they are not.
  bool formats() const { return out_ != nullptr; }
  const InvariantVerdict& verdict() const { return verdict_; }

 private:
  std::vector<InvariantViolation>* out_;
  InvariantVerdict verdict_;
};

// F1-F6 (invariants_flow.cc). Reads only exp_lock-protected state.
void CheckFlows(const hfi1_ctxtdata& rcd, absl::Span<rvt_qp* const> qps,
                const CheckOptions& options, bool bitmap_only, Collector* c)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd.exp_lock);

// W1-W6 (invariants_wait.cc). Reads s_flags only when options.quiescent.
void CheckWaitQueues(const hfi1_ctxtdata& rcd, absl::Span<rvt_qp* const> qps,
                     const CheckOptions& options, Collector* c)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd.exp_lock);

// G1-G7 (invariants_rcvarray.cc): the context's RcvArray groups and
// entries; the QPs' live segments only when options.quiescent.
void CheckRcvArray(const hfi1_ctxtdata& rcd, absl::Span<rvt_qp* const> qps,
                   const CheckOptions& options, Collector* c)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd.exp_lock);

}  // namespace internal
}  // namespace flowcheck

#endif  // FLOWCHECK_CORE_INVARIANTS_INTERNAL_H_
