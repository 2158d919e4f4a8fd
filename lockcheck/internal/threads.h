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
// mutex, inside a TsanIgnoreScope. ALL per-thread lockcheck state lives in the
// record, reached through the one pointer `tls_record`: code that runs several
// logical threads on one OS thread switches between them by swapping it.
//
// The layout serves the inline lock fast path (lock_state.h): the held-lock
// count, the IRQ flag and the hardirq depth share one word (`state`), and a
// held entry's class and trylock flag another (`tag`), so an acquisition
// reads the thread's whole state in one load and records a lock in four
// stores.
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

// A held lock's class and trylock flag in one word: class * 2 + trylock
// (the class may be kUntrackedClass, -1).
inline int32_t MakeTag(int cls, bool trylock) {
  return static_cast<int32_t>(static_cast<uint32_t>(cls) << 1) | (trylock ? 1 : 0);
}
inline int ClassOfTag(int32_t tag) { return tag >> 1; }  // arithmetic shift
inline bool IsTrylockTag(int32_t tag) { return (tag & 1) != 0; }

struct HeldEntry {
  std::atomic<const void*> lock{nullptr};
  std::atomic<const void*> pc{nullptr};  // the acquisition's call site
  std::atomic<int32_t> tag{0};           // MakeTag(class, trylock)
};

// ThreadRecord::state: bits 0-7 the number of held locks (entries used in
// `held`), bit 8 set while the emulated IRQs are off, bits 9-31 the hardirq
// nesting depth (HardirqScope).
inline constexpr uint32_t kDepthMask = 0xff;
inline constexpr uint32_t kIrqsOffBit = 0x100;
inline constexpr uint32_t kHardirqOne = 0x200;
static_assert(kMaxHeldLocks <= static_cast<int>(kDepthMask), "depth fits its bits");
inline int HeldDepth(uint32_t state) { return static_cast<int>(state & kDepthMask); }
inline bool IrqsOff(uint32_t state) { return (state & kIrqsOffBit) != 0; }
inline bool InHardirq(uint32_t state) { return state >= kHardirqOne; }

struct ThreadRecord {
  std::atomic<uint32_t> id{0};
  std::atomic<uint32_t> state{0};  // held count, IRQ flag, hardirq depth
  HeldEntry held[kMaxHeldLocks];   // outermost first
  std::atomic<bool> live{false};
  std::atomic<char> name[kThreadNameSize] = {};
  std::atomic<const void*> waiting_for{nullptr};  // lock being spun on
  std::atomic<int> waiting_class{0};
  ThreadRecord* next = nullptr;  // registry list
};

extern __thread ThreadRecord* tls_record __attribute__((tls_model("initial-exec")));

inline uint32_t StateOf(const ThreadRecord* r) {
  return r->state.load(std::memory_order_relaxed);
}

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
