// core/slab_cache.h: the memory behind kmalloc_node / kfree
// (core/kernel_idioms.h): blocks carry their size in front, and a freed
// block is kept (up to kSlabKeep per size) for the next request of the same
// size, as the kernel's kmalloc caches keep freed objects. Thread-safe (one
// mutex; TSan sees the hand-over). Under ASan a kept block is poisoned
// until it is taken again, so an access after kfree still fails.
#ifndef FLOWCHECK_CORE_SLAB_CACHE_H_
#define FLOWCHECK_CORE_SLAB_CACHE_H_

#include <cstddef>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define FLOWCHECK_SLAB_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define FLOWCHECK_SLAB_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#endif
#endif
#ifndef FLOWCHECK_SLAB_POISON
#define FLOWCHECK_SLAB_POISON(p, n) ((void)(p), (void)(n))
#define FLOWCHECK_SLAB_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace flowcheck {

inline constexpr size_t kSlabKeep = 64;     // blocks kept per size
inline constexpr size_t kSlabHeader = 16;   // the size, in front (keeps 16-byte alignment)

struct SlabCache {
  std::mutex mu;
  std::map<size_t, std::vector<void*>> kept;  // size -> blocks (their headers)
};
inline SlabCache& Slabs() {
  static SlabCache* c = new SlabCache();  // never destroyed: kfree may run at exit
  return *c;
}

// `size` bytes (uninitialized), or nullptr if the heap is exhausted.
inline void* SlabTake(size_t size) {
  void* block = nullptr;
  {
    std::lock_guard<std::mutex> lock(Slabs().mu);
    auto it = Slabs().kept.find(size);
    if (it != Slabs().kept.end() && !it->second.empty()) {
      block = it->second.back();
      it->second.pop_back();
    }
  }
  if (block != nullptr) {
    FLOWCHECK_SLAB_UNPOISON(static_cast<char*>(block) + kSlabHeader, size);
  } else {
    block = std::malloc(kSlabHeader + size);
    if (block == nullptr) return nullptr;
    *static_cast<size_t*>(block) = size;
  }
  return static_cast<char*>(block) + kSlabHeader;
}

// Gives back a block SlabTake returned (nullptr: nothing).
inline void SlabGive(void* p) {
  if (p == nullptr) return;
  void* block = static_cast<char*>(p) - kSlabHeader;
  const size_t size = *static_cast<size_t*>(block);
  {
    std::lock_guard<std::mutex> lock(Slabs().mu);
    std::vector<void*>& kept = Slabs().kept[size];
    if (kept.size() < kSlabKeep) {
      FLOWCHECK_SLAB_POISON(p, size);
      kept.push_back(block);
      return;
    }
  }
  std::free(block);
}

}  // namespace flowcheck

#endif  // FLOWCHECK_CORE_SLAB_CACHE_H_
