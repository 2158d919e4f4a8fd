// common/sanitizers.h: the one place flowcheck talks to the sanitizers'
// runtimes: which sanitizer this build has, and scopes that hide accesses
// (and synchronization) from ThreadSanitizer. Every layer uses it: lockcheck
// and sched for their own bookkeeping, the fuzz executor and upstream mode
// for harness state. Without the sanitizer each piece is empty.
//
// Why hide anything: lockcheck and the controlled scheduler must add no
// happens-before edge beyond the ones the code under test creates, or TSan
// would stop reporting its races; and logical threads run one at a time
// share harness bookkeeping without locks, which TSan cannot know.
//
//   { flowcheck::TsanIgnoreAccesses hide; table[qp] = ...; }   // reads, writes
//   { flowcheck::TsanIgnoreAll hide; mu.lock(); ... }           // + sync
//
// TSan keeps ignore state per thread and per fiber: a scope must begin and
// end on the same logical thread, so never let one span a decision point.
#ifndef FLOWCHECK_COMMON_SANITIZERS_H_
#define FLOWCHECK_COMMON_SANITIZERS_H_

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FLOWCHECK_UNDER_TSAN 1
#endif
#if __has_feature(address_sanitizer)
#define FLOWCHECK_UNDER_ASAN 1
#endif
#endif
#if !defined(FLOWCHECK_UNDER_TSAN) && defined(__SANITIZE_THREAD__)
#define FLOWCHECK_UNDER_TSAN 1
#endif
#if !defined(FLOWCHECK_UNDER_ASAN) && defined(__SANITIZE_ADDRESS__)
#define FLOWCHECK_UNDER_ASAN 1
#endif

#if defined(FLOWCHECK_UNDER_TSAN)
#include <sanitizer/tsan_interface.h>
// The TSan runtime's annotation interface (Abseil's dynamic_annotations.h
// has the same prototypes for the Annotate* ones). Reads and writes are
// ignored with one call, __tsan_ignore_thread_begin: the runtime keeps one
// counter for both (AnnotateIgnoreReadsBegin and AnnotateIgnoreWritesBegin
// each bump it), and every begin records its caller's stack: a third fewer
// records in a TsanIgnoreAll, which the scheduler enters at every decision
// point (the records were 9% of a `--minimize` run's time).
extern "C" {
void AnnotateIgnoreSyncBegin(const char* file, int line);
void AnnotateIgnoreSyncEnd(const char* file, int line);
void __tsan_ignore_thread_begin();
void __tsan_ignore_thread_end();
}
#endif

namespace flowcheck {

// Plain reads and writes in the scope are invisible to TSan; it creates no
// happens-before edge and hides no synchronization.
class TsanIgnoreAccesses {
 public:
#if defined(FLOWCHECK_UNDER_TSAN)
  TsanIgnoreAccesses() { __tsan_ignore_thread_begin(); }
  ~TsanIgnoreAccesses() { __tsan_ignore_thread_end(); }
#else
  // User-provided (not trivial): `TsanIgnoreAccesses hide;` is no unused
  // variable under -Werror.
  TsanIgnoreAccesses() {}
  ~TsanIgnoreAccesses() {}
#endif
  TsanIgnoreAccesses(const TsanIgnoreAccesses&) = delete;
  TsanIgnoreAccesses& operator=(const TsanIgnoreAccesses&) = delete;
};

// Accesses AND synchronization (mutexes, atomics) in the scope are
// invisible to TSan: what lockcheck's internal mutexes and the scheduler's
// hand-offs run in, so they order nothing between the threads under test.
class TsanIgnoreAll {
 public:
#if defined(FLOWCHECK_UNDER_TSAN)
  TsanIgnoreAll() {
    AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
    __tsan_ignore_thread_begin();
  }
  ~TsanIgnoreAll() {
    __tsan_ignore_thread_end();
    AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
  }
#else
  TsanIgnoreAll() {}
  ~TsanIgnoreAll() {}
#endif
  TsanIgnoreAll(const TsanIgnoreAll&) = delete;
  TsanIgnoreAll& operator=(const TsanIgnoreAll&) = delete;
};

// A happens-before edge from TsanRelease(token) to a later
// TsanAcquire(token). Never inside a TsanIgnoreAll (TSan would drop it).
inline void TsanRelease(void* token) {
#if defined(FLOWCHECK_UNDER_TSAN)
  __tsan_release(token);
#else
  (void)token;
#endif
}
inline void TsanAcquire(void* token) {
#if defined(FLOWCHECK_UNDER_TSAN)
  __tsan_acquire(token);
#else
  (void)token;
#endif
}

// This build's sanitizer: "tsan", "asan" or "none" (schedule files record
// it; a replay rebuilds in it).
inline const char* BuildSanitizer() {
#if defined(FLOWCHECK_UNDER_TSAN)
  return "tsan";
#elif defined(FLOWCHECK_UNDER_ASAN)
  return "asan";
#else
  return "none";
#endif
}

}  // namespace flowcheck

#endif  // FLOWCHECK_COMMON_SANITIZERS_H_
