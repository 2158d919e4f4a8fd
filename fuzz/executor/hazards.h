// fuzz/executor/hazards.h: the kernel hazards the concurrent executor
// (sched_executor.h) tells apart from bugs: behaviour of the kernel's own
// text, kept by the model (docs/kernel-hazards.md), reported as
// "note: hazard <id>: ..." by default and failed as "[hazard <id>]" under
// --strict (FLOWCHECK_FUZZ_STRICT=1). docs/fuzz.md lists the same rows
// (//fuzz:hazard_ids_doc_test).
#ifndef FLOWCHECK_FUZZ_EXECUTOR_HAZARDS_H_
#define FLOWCHECK_FUZZ_EXECUTOR_HAZARDS_H_

#include <string>

#include "common/check_id.h"

namespace flowcheck {
namespace fuzz {

enum class Hazard { kFlushStrandsWaiter, kCount };

inline constexpr CheckId<Hazard> kHazardIds[] = {
    {Hazard::kFlushStrandsWaiter, "flush-strands-waiter",
     "a QP that had waited for a flow was flushed after its wakeup, and the next waiter of "
     "flow_queue is never woken"},
};
static_assert(WellFormedIdTable(kHazardIds), "one row per Hazard, in order");

// "hazard <id>": the failure kind (and note prefix) of hazard `h`.
inline std::string HazardKind(Hazard h) { return std::string("hazard ") + IdOf(kHazardIds, h); }

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_EXECUTOR_HAZARDS_H_
