// sched/sanitizers.h: what the scheduler tells ThreadSanitizer and
// AddressSanitizer, so that running logical threads one at a time neither
// hides a race from TSan nor confuses ASan about which stack is live.
//
// The rule (measured, see docs/sched.md): the scheduler's own bookkeeping and
// hand-offs must be invisible to TSan, or every hand-off would be a
// happens-before edge and TSan would stop reporting races between the logical
// threads. So:
//   * every access the scheduler makes to its shared state, and every
//     hand-off, runs inside an IgnoreScope (AnnotateIgnoreSync/Reads/Writes);
//   * the only edges it creates are the ones a real thread library creates:
//     spawning a thread (the parent's past happens before the child's start)
//     and a thread's end (which happens before whoever joins it, including the
//     controller's end-of-execution checks): TsanRelease/TsanAcquire on a
//     per-thread token, always called OUTSIDE an IgnoreScope.
// IgnoreScope state is per thread for TSan, and per fiber: a scope begun on
// one fiber must end on that fiber (the switcher and runtime keep each scope
// within one function on one context).
// The scopes, edges and the sanitizer detection are common/sanitizers.h's
// (one copy for every layer); this header adds ASan's fiber interface.
// Without the sanitizers everything here is empty.
#ifndef FLOWCHECK_SCHED_SANITIZERS_H_
#define FLOWCHECK_SCHED_SANITIZERS_H_

#include <cstddef>

#include "common/sanitizers.h"

#if defined(FLOWCHECK_UNDER_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace sched {
namespace internal {

// Hides the enclosed accesses and synchronization from TSan.
using IgnoreScope = ::flowcheck::TsanIgnoreAll;
// Edges, and the build's sanitizer: common/sanitizers.h.
using ::flowcheck::BuildSanitizer;
using ::flowcheck::TsanAcquire;
using ::flowcheck::TsanRelease;

}  // namespace internal
}  // namespace sched

#endif  // FLOWCHECK_SCHED_SANITIZERS_H_
