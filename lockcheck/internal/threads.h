// lockcheck/internal/threads.h: per-thread state (held-lock stack, IRQ flag,
// name) and the registry of live threads.
//
// Each thread owns one ThreadRecord, found through a thread-local pointer
// (initial-exec TLS: one instruction). A thread registers at its first
// lockcheck operation and unregisters from a thread_local destructor when it
// exits, which is also where kExitWithLocksHeld is detected. Records are never
// freed, only reused, so a watchdog may read any record at any time.
//
// Every field is an atomic written only by the owning thread, with relaxed
// ordering: other threads (DescribeAllThreads) read a best-effort snapshot and
// never synchronize with the owner. `next` is touched only under the registry
// mutex, inside a TsanIgnoreScope.
#ifndef FLOWCHECK_LOCKCHECK_INTERNAL_THREADS_H_
#define FLOWCHECK_LOCKCHECK_INTERNAL_THREADS_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace lockcheck {
namespace internal {

// lockdep's MAX_LOCK_DEPTH. Holding more at once aborts with a message.
inline constexpr int kMaxHeldLocks = 48;
inline constexpr int kThreadNameSize = 32;

struct HeldEntry {
  std::atomic<const void*> lock{nullptr};
  std::atomic<int> cls{0};
  std::atomic<const void*> pc{nullptr};  // return address of the acquisition
  std::atomic<bool> trylock{false};
};

struct ThreadRecord {
  std::atomic<uint32_t> id{0};
  std::atomic<bool> live{false};
  std::atomic<char> name[kThreadNameSize] = {};
  std::atomic<int> depth{0};                // entries used in `held`
  HeldEntry held[kMaxHeldLocks];            // outermost first
  std::atomic<const void*> waiting_for{nullptr};  // lock being spun on
  std::atomic<int> waiting_class{0};
  std::atomic<bool> irqs_off{false};
  std::atomic<int> hardirq_depth{0};
  ThreadRecord* next = nullptr;  // registry list
};

extern __thread ThreadRecord* tls_record __attribute__((tls_model("initial-exec")));

// Registers the calling thread (slow path, once per thread).
ThreadRecord* RegisterCurrentThread();

// A fresh live record with a new id, not bound to any OS thread (the calling
// thread's tls_record is unchanged): RegisterCurrentThread's first half, and
// how logical_thread.h makes a record per logical thread.
ThreadRecord* NewThreadRecord();

// Marks `r` free for reuse. It must be current on no OS thread.
void RetireThreadRecord(ThreadRecord* r);

// kExitWithLocksHeld for `self`, the calling thread's current record, which
// holds locks.
void ReportExitWithLocksHeld(ThreadRecord* self);

inline ThreadRecord* Self() {
  ThreadRecord* r = tls_record;
  return r != nullptr ? r : RegisterCurrentThread();
}

inline uint32_t IdOf(const ThreadRecord* r) {
  return r->id.load(std::memory_order_relaxed);
}

// `thread 3 "qp-3"` (or `thread 3` when unnamed).
std::string LabelOf(const ThreadRecord* r);
std::string CurrentThreadLabel();

// The calling thread's held locks, outermost first, as
// "class (instance) acquired at function".
std::vector<std::string> HeldLocksOfSelf();

}  // namespace internal
}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_INTERNAL_THREADS_H_
