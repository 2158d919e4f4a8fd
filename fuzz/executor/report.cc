// fuzz/executor/report.cc: see report.h.
#include "fuzz/executor/report.h"

#include "absl/strings/str_format.h"

namespace flowcheck {
namespace fuzz {

std::string FormatMask(uint64_t mask) {
  std::string pic;
  for (int f = 0; f < 32; ++f) pic += ((mask >> f) & 1) ? '#' : '.';
  std::string s = absl::StrFormat("0x%08x [%s]", mask & 0xFFFFFFFFull, pic);
  if (mask >> 32) s += absl::StrFormat(" + bits above 31: 0x%x", mask >> 32);
  return s;
}

std::string FailureReport(const Program& p, const Failure& f) {
  std::string layer = "oracle";
  if (f.layer == FailLayer::kInvariant) {
    layer = "invariant " + (f.violations.empty() ? std::string("?") : f.violations[0].id);
  }
  std::string s =
      absl::StrFormat("flowcheck: FAIL [%s] %s op #%u%s %s\n", layer, TargetName(p.format),
                      f.op_index, f.sub ? absl::StrFormat(" (call %d)", f.sub + 1) : "", f.op);
  s += absl::StrFormat("  call:     %s\n", f.call);
  s += absl::StrFormat("  returned: model %d, %s %d%s\n", f.model_ret,
                       p.format == Format::kPure ? "reference" : "oracle", f.oracle_ret,
                       f.model_ret == f.oracle_ret ? "" : "  <-- differ");
  if (f.has_masks) {
    const char* other = p.format == Format::kPure ? "reference" : "oracle";
    s += absl::StrFormat("  flow_mask before: %-9s %s\n", "model", FormatMask(f.mask_before));
    s += absl::StrFormat("                    %-9s %s\n", other, FormatMask(f.oracle_mask_before));
    s += absl::StrFormat("  flow_mask after:  %-9s %s\n", "model", FormatMask(f.mask_after));
    s += absl::StrFormat("                    %-9s %s\n", other, FormatMask(f.oracle_mask_after));
  }
  if (!f.diffs.empty()) {
    s += absl::StrFormat("  differences (model vs %s):\n",
                         p.format == Format::kPure ? "reference" : "oracle");
    for (const std::string& d : f.diffs) s += "    " + d + "\n";
  }
  if (!f.violations.empty()) {
    s += "  invariants violated:\n";
    for (const InvariantViolation& v : f.violations) s += "    " + v.ToString() + "\n";
  }
  return s;
}

}  // namespace fuzz
}  // namespace flowcheck
