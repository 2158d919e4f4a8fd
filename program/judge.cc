// program/judge.cc: see judge.h.
#include "program/judge.h"

#include "common/strings.h"
#include "program/failure.h"

namespace flowcheck {
namespace program {

void FailWith(const Finding& f, const std::string& who) {
  Fail(f.id == kIdOracle ? f.id : "invariant " + f.id,
       flowcheck::StrCat(f.detail, " [found by ", who, "]"));
}

void JudgeInto(std::map<std::string, std::string>* divergences,
               const std::vector<Finding>& findings, const char* where, const std::string& who,
               bool strict) {
  for (const Finding& f : findings) {
    if (f.divergence && !strict) {
      divergences->emplace(f.id, f.detail);
    } else {
      // Under --strict a known kernel hazard fails, and says it is one.
      FailWith(Finding{f.id, flowcheck::StrCat(f.divergence ? "upstream divergence (strict): " : "",
                                               f.detail, " (checked after: ", where, ")")},
               who);
    }
  }
}

}  // namespace program
}  // namespace flowcheck
