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
// Without the sanitizers everything here is empty.
#ifndef FLOWCHECK_SCHED_SANITIZERS_H_
#define FLOWCHECK_SCHED_SANITIZERS_H_

#include <cstddef>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SCHED_UNDER_TSAN 1
#endif
#if __has_feature(address_sanitizer)
#define SCHED_UNDER_ASAN 1
#endif
#endif
#if !defined(SCHED_UNDER_TSAN) && defined(__SANITIZE_THREAD__)
#define SCHED_UNDER_TSAN 1
#endif
#if !defined(SCHED_UNDER_ASAN) && defined(__SANITIZE_ADDRESS__)
#define SCHED_UNDER_ASAN 1
#endif

#if defined(SCHED_UNDER_TSAN)
#include <sanitizer/tsan_interface.h>
extern "C" {
void AnnotateIgnoreSyncBegin(const char* file, int line);
void AnnotateIgnoreSyncEnd(const char* file, int line);
void AnnotateIgnoreReadsBegin(const char* file, int line);
void AnnotateIgnoreReadsEnd(const char* file, int line);
void AnnotateIgnoreWritesBegin(const char* file, int line);
void AnnotateIgnoreWritesEnd(const char* file, int line);
}
#endif
#if defined(SCHED_UNDER_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace sched {
namespace internal {

// Hides the enclosed accesses and synchronization from TSan.
class IgnoreScope {
 public:
#if defined(SCHED_UNDER_TSAN)
  IgnoreScope() {
    AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  }
  ~IgnoreScope() {
    AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
    AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
  }
#else
  IgnoreScope() {}
  ~IgnoreScope() {}
#endif
  IgnoreScope(const IgnoreScope&) = delete;
  IgnoreScope& operator=(const IgnoreScope&) = delete;
};

// A happens-before edge from TsanRelease(token) to a later TsanAcquire(token).
// Never inside an IgnoreScope (TSan would drop it).
inline void TsanRelease(void* token) {
#if defined(SCHED_UNDER_TSAN)
  __tsan_release(token);
#else
  (void)token;
#endif
}
inline void TsanAcquire(void* token) {
#if defined(SCHED_UNDER_TSAN)
  __tsan_acquire(token);
#else
  (void)token;
#endif
}

// The build's sanitizer, for schedule files ("tsan", "asan" or "none").
inline const char* BuildSanitizer() {
#if defined(SCHED_UNDER_TSAN)
  return "tsan";
#elif defined(SCHED_UNDER_ASAN)
  return "asan";
#else
  return "none";
#endif
}

}  // namespace internal
}  // namespace sched

#endif  // FLOWCHECK_SCHED_SANITIZERS_H_
