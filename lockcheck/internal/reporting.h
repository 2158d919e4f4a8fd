// lockcheck/internal/reporting.h: how a detector turns a violation into one
// Report for the installed handler.
//
//   if (ClaimReport(Rule::kX, cls, 0, site)) {       // first time only
//     Report r = NewReport(Rule::kX, lock, cls);      // thread, held, stack
//     r.message = "...";
//     Deliver(r);                                     // the handler
//   }
//
// Call these with no lockcheck-internal mutex held.
#ifndef FLOWCHECK_LOCKCHECK_INTERNAL_REPORTING_H_
#define FLOWCHECK_LOCKCHECK_INTERNAL_REPORTING_H_

#include <string>

#include "lockcheck/report.h"

namespace lockcheck {
namespace internal {

// True the first time (rule, a, b, site) is seen since start or
// ResetForTesting: the caller reports; false: already reported, stay quiet.
// `a`, `b` are class ids (b = 0 when unused); `site` a call site or nullptr.
bool ClaimReport(Rule rule, int a, int b, const void* site);

// A report of `rule` about `lock` (class `cls`) by the calling thread, with
// its held locks and its symbolized stack filled in; message left empty.
Report NewReport(Rule rule, const void* lock, int cls);

// Hands `report` to the installed handler.
void Deliver(const Report& report);

// Forgets which violations were reported (ResetForTesting).
void ForgetReports();

// "&rcd->exp_lock (0x7ffd5b1c2a40)"
std::string LockLabel(int cls, const void* lock);

}  // namespace internal
}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_INTERNAL_REPORTING_H_
