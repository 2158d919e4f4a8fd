// fuzz/executor/report.cc: see report.h.
#include "fuzz/executor/report.h"

#include "common/strings.h"

namespace flowcheck {
namespace fuzz {

std::string FormatMask(uint64_t mask) {
  std::string pic;
  for (int f = 0; f < 32; ++f) pic += ((mask >> f) & 1) ? '#' : '.';
  std::string s = flowcheck::StrFormat("0x%08llx [%s]", mask & 0xFFFFFFFFull, pic.c_str());
  if (mask >> 32) s += flowcheck::StrFormat(" + bits above 31: 0x%" PRIx64, mask >> 32);
  return s;
}

std::string FailureReport(const Program& p, const Failure& f) {
  std::string layer = "oracle";
  if (f.layer == FailLayer::kInvariant) {
    layer = "invariant " + (f.violations.empty() ? std::string("?") : f.violations[0].id);
  }
  std::string s = flowcheck::StrFormat(
      "flowcheck: FAIL [%s] %s op #%zu%s %s\n", layer.c_str(), TargetName(p.format), f.op_index,
      (f.sub ? flowcheck::StrFormat(" (call %d)", f.sub + 1) : "").c_str(), f.op.c_str());
  s += flowcheck::StrFormat("  call:     %s\n", f.call.c_str());
  s += flowcheck::StrFormat("  returned: model %" PRId64 ", %s %" PRId64 "%s\n", f.model_ret,
                            p.format == Format::kPure ? "reference" : "oracle", f.oracle_ret,
                            f.model_ret == f.oracle_ret ? "" : "  <-- differ");
  if (f.has_masks) {
    const char* other = p.format == Format::kPure ? "reference" : "oracle";
    s += flowcheck::StrFormat("  flow_mask before: %-9s %s\n", "model",
                              FormatMask(f.mask_before).c_str());
    s += flowcheck::StrFormat("                    %-9s %s\n", other,
                              FormatMask(f.oracle_mask_before).c_str());
    s += flowcheck::StrFormat("  flow_mask after:  %-9s %s\n", "model",
                              FormatMask(f.mask_after).c_str());
    s += flowcheck::StrFormat("                    %-9s %s\n", other,
                              FormatMask(f.oracle_mask_after).c_str());
  }
  if (!f.diffs.empty()) {
    s += flowcheck::StrFormat("  differences (model vs %s):\n",
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
