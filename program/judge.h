// program/judge.h: internal to the engine. How a finding becomes a failure.
//
// The checks (checks.h) return findings; the engine judges them: an
// upstream divergence (the kernel's own known hazard) is recorded, first
// example per id, and the run goes on; anything else fails the run at once
// with the "invariant <ID>" marker (failure.h), naming the thread that found
// it and after which operation.
#ifndef FLOWCHECK_PROGRAM_JUDGE_H_
#define FLOWCHECK_PROGRAM_JUDGE_H_

#include <map>
#include <string>
#include <vector>

#include "core/caller_checks.h"

namespace flowcheck {
namespace program {

// Fails the run with `f`, found by `who`: "flowcheck: FAIL [invariant <id>]
// <detail> [found by <who>]"; the oracle's id (kIdOracle) as the fuzz
// targets report it: "flowcheck: FAIL [oracle] <detail> [found by <who>]".
// Does not return.
[[noreturn]] void FailWith(const Finding& f, const std::string& who);

// Records divergences (first example per id) in `divergences` and fails on
// the first real finding, saying it was found after `where` by `who`; with
// `strict` (StressConfig::strict) a divergence fails too.
void JudgeInto(std::map<std::string, std::string>* divergences,
               const std::vector<Finding>& findings, const char* where, const std::string& who,
               bool strict);

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_JUDGE_H_
