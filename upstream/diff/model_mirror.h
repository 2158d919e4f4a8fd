// upstream/diff/model_mirror.h: core's model as a Lockstep mirror
// (core/oracle/lockstep.h), for the differential target: a world of its own
// (one device, one kernel context, QPs 1..n, a work queue only Step drains),
// built and driven by core's model functions, which in this process carry the
// prefix diffmodel_ (upstream/diff/model_names.h) while //core:core holds the
// kernel's text. The mirror's Compare reads both worlds (state_diff.h) and
// appends a line per difference ("differential: ..., kernel X, core Y").
//
// Threading: as Lockstep (the calling thread holds no lock). Never holds the
// two worlds' locks at once.
#ifndef FLOWCHECK_UPSTREAM_DIFF_MODEL_MIRROR_H_
#define FLOWCHECK_UPSTREAM_DIFF_MODEL_MIRROR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/oracle/lockstep.h"

namespace flowcheck {
namespace diff {

// A mirror of a Lockstep(num_qps, seed): same QPs, same seed. Defined in the
// model instance (not renamed: only that instance defines it).
std::unique_ptr<oracle::Lockstep::Mirror> MakeCoreModelMirror(int num_qps, uint64_t seed);

// The lines of a Lockstep result's diffs (Step's or Compare's) that say the
// two worlds disagree: this mirror's state differences ("differential: ...")
// and Lockstep's line for a return value the mirror's call did not match
// ("...: returned X, core's model returned Y"). Tests and reports use it to
// tell a differential finding from an oracle one.
inline std::vector<std::string> DifferentialLines(const std::vector<std::string>& diffs) {
  std::vector<std::string> out;
  for (const std::string& d : diffs) {
    if (d.rfind("differential: ", 0) == 0 || d.find("core's model returned") != std::string::npos)
      out.push_back(d);
  }
  return out;
}

}  // namespace diff
}  // namespace flowcheck

#endif  // FLOWCHECK_UPSTREAM_DIFF_MODEL_MIRROR_H_
