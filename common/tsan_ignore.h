// common/tsan_ignore.h: a scope whose plain reads and writes ThreadSanitizer
// does not see (AnnotateIgnoreReads/WritesBegin .. End); empty without TSan.
//
// For harness bookkeeping that logical threads of a controlled scheduler
// share without locks (the scheduler runs one at a time, which TSan cannot
// know): the fuzz target's per-execution state, upstream mode's
// charged-queue entries. It creates no happens-before edge and hides no
// synchronization (unlike sched's own IgnoreScope, which also ignores sync
// for the hand-offs). TSan keeps ignore state per thread and per fiber: a
// scope must begin and end on the same logical thread, so never let one
// span a decision point.
//
//   { flowcheck::TsanIgnoreAccesses hide; table[qp] = ...; }
#ifndef FLOWCHECK_COMMON_TSAN_IGNORE_H_
#define FLOWCHECK_COMMON_TSAN_IGNORE_H_

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FLOWCHECK_TSAN_IGNORE_ACTIVE 1
#endif
#endif
#if !defined(FLOWCHECK_TSAN_IGNORE_ACTIVE) && defined(__SANITIZE_THREAD__)
#define FLOWCHECK_TSAN_IGNORE_ACTIVE 1
#endif

#if defined(FLOWCHECK_TSAN_IGNORE_ACTIVE)
extern "C" {
void AnnotateIgnoreReadsBegin(const char* file, int line);
void AnnotateIgnoreReadsEnd(const char* file, int line);
void AnnotateIgnoreWritesBegin(const char* file, int line);
void AnnotateIgnoreWritesEnd(const char* file, int line);
}
#endif

namespace flowcheck {

class TsanIgnoreAccesses {
 public:
#if defined(FLOWCHECK_TSAN_IGNORE_ACTIVE)
  TsanIgnoreAccesses() {
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  }
  ~TsanIgnoreAccesses() {
    AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
  }
#else
  // User-provided (not trivial): `TsanIgnoreAccesses hide;` is no unused
  // variable under -Werror.
  TsanIgnoreAccesses() {}
  ~TsanIgnoreAccesses() {}
#endif
  TsanIgnoreAccesses(const TsanIgnoreAccesses&) = delete;
  TsanIgnoreAccesses& operator=(const TsanIgnoreAccesses&) = delete;
};

}  // namespace flowcheck

#endif  // FLOWCHECK_COMMON_TSAN_IGNORE_H_
