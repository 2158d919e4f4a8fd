// fuzz/executor/report.h: a Failure (result.h) as the fuzz targets, the
// reproduce command and the emitted GoogleTest cases print it. Its first line
// is the one the self-test classifies:
//   flowcheck: FAIL [oracle] ...         model and oracle disagree
//   flowcheck: FAIL [invariant F1] ...   an invariant (or a pure property)
#ifndef FLOWCHECK_FUZZ_EXECUTOR_REPORT_H_
#define FLOWCHECK_FUZZ_EXECUTOR_REPORT_H_

#include <cstdint>
#include <string>

#include "fuzz/executor/result.h"
#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {

// The classifier line, the op, both results, the flow_mask before/after as
// hex and as a 32-flow picture, every difference and every failing invariant.
// `p` is the program that failed (its format names the target).
std::string FailureReport(const Program& p, const Failure& f);

// "0x0000000f [####............................]": flow 0 leftmost.
std::string FormatMask(uint64_t mask);

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_EXECUTOR_REPORT_H_
