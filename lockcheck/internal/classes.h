// lockcheck/internal/classes.h: lock classes, their order edges and IRQ usage.
//
// lockdep reasons about classes, not instances: every lock initialised at one
// spin_lock_init() site is the same class, so an order learned on one rcd's
// exp_lock holds for all of them. Classes are small integers (1..) indexing a
// fixed table. Everything the acquire fast path reads here is a relaxed atomic:
//   * succ: per-class bitmap of known order edges "this class -> other";
//   * usage: per-class IRQ usage bits.
// Only a new edge or a new usage bit takes the slow path (graph.h).
//
// Standalone (spinlock.h includes it, for the inline fast path): it must not
// include spinlock.h.
#ifndef FLOWCHECK_LOCKCHECK_INTERNAL_CLASSES_H_
#define FLOWCHECK_LOCKCHECK_INTERNAL_CLASSES_H_

#include <atomic>
#include <cstdint>

namespace lockcheck {

struct lock_class_key;  // spinlock.h

// lockdep's MAX_LOCKDEP_SUBCLASSES: valid subclasses are 0..7 (public, as
// lockcheck::kMaxSubclasses, through spinlock.h).
inline constexpr int kMaxSubclasses = 8;

namespace internal {

// lockdep's MAX_LOCKDEP_KEYS is 8192; one test binary or model needs far
// fewer. Running out aborts with a message.
inline constexpr int kMaxClasses = 1024;
inline constexpr int kClassWords = kMaxClasses / 64;

// Class id of a lock used without spin_lock_init, after it was reported: the
// lock still works and is owner-tracked, but has no class rules.
inline constexpr int kUntrackedClass = -1;

// IRQ usage bits (lockdep's LOCK_USED_IN_HARDIRQ / LOCK_ENABLED_HARDIRQ).
enum Usage : uint8_t {
  kUsedInHardirq = 1,   // acquired in hardirq context: "IRQ-safe"
  kEnabledHardirq = 2,  // held with IRQs enabled: "IRQ-unsafe"
};

struct ClassData {
  std::atomic<const char*> name{nullptr};
  // sub[n]: class id of subclass n (sub[0] is this class), 0 = not yet made.
  std::atomic<int> sub[kMaxSubclasses] = {};
  std::atomic<uint8_t> usage{0};
  std::atomic<uint64_t> succ[kClassWords] = {};
};

extern ClassData g_classes[kMaxClasses];

// Registers the class of `key` if new (slow path, once per key).
int ClassOfKey(const char* name, lock_class_key* key);

// Class id of subclass `subclass` of `base` (creating "<name>/<n>" on first
// use). Aborts on a subclass outside 0..kMaxSubclasses-1, as lockdep BUGs.
int SubclassOf(int base, int subclass);

// Name of class `id`; "<uninitialized>" for kUntrackedClass or 0.
const char* ClassName(int id);

// Number of class ids handed out so far, plus one (ids are 1..n-1).
int ClassLimit();

inline bool HasEdge(int from, int to) {
  return (g_classes[from].succ[to >> 6].load(std::memory_order_relaxed) >>
          (to & 63)) & 1;
}
inline bool HasUsage(int cls, uint8_t bits) {
  return (g_classes[cls].usage.load(std::memory_order_relaxed) & bits) == bits;
}

}  // namespace internal
}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_INTERNAL_CLASSES_H_
