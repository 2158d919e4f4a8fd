#include "lockcheck/internal/classes.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "lockcheck/internal/tsan.h"
#include "lockcheck/spinlock.h"

namespace lockcheck {
namespace internal {

ClassData g_classes[kMaxClasses];

namespace {

std::atomic<int> next_class{1};

// A constant-initialized global, never a function-local static (tsan.h).
std::mutex class_mu;

// With class_mu held.
int NewClassLocked(const char* name) {
  int id = next_class.load(std::memory_order_relaxed);
  if (id >= kMaxClasses) {
    std::fprintf(stderr,
                 "lockcheck: too many lock classes (%d) registering %s; raise "
                 "kMaxClasses in lockcheck/internal/classes.h\n",
                 kMaxClasses, name);
    std::abort();
  }
  g_classes[id].name.store(name, std::memory_order_relaxed);
  g_classes[id].sub[0].store(id, std::memory_order_relaxed);
  next_class.store(id + 1, std::memory_order_relaxed);
  return id;
}

}  // namespace

int ClassOfKey(const char* name, lock_class_key* key) {
  // Relaxed: an acquire here would order this thread after the thread that
  // registered the class (see tsan.h). The slow path re-checks under the mutex.
  int id = key->id.load(std::memory_order_relaxed);
  if (id != 0) return id;
  IgnoredLockGuard guard(class_mu);
  id = key->id.load(std::memory_order_relaxed);
  if (id == 0) {
    id = NewClassLocked(name);
    key->id.store(id, std::memory_order_relaxed);
  }
  return id;
}

int SubclassOf(int base, int subclass) {
  if (subclass == 0) return base;
  if (subclass < 0 || subclass >= kMaxSubclasses) {
    std::fprintf(stderr, "lockcheck: invalid subclass %d for %s (valid: 0..%d)\n",
                 subclass, ClassName(base), kMaxSubclasses - 1);
    std::abort();
  }
  int id = g_classes[base].sub[subclass].load(std::memory_order_relaxed);
  if (id != 0) return id;
  IgnoredLockGuard guard(class_mu);
  id = g_classes[base].sub[subclass].load(std::memory_order_relaxed);
  if (id == 0) {
    std::string name = std::string(ClassName(base)) + "/" + std::to_string(subclass);
    // Never freed: class names live as long as the process (and stay
    // reachable from g_classes, so LeakSanitizer does not count them).
    char* kept = new char[name.size() + 1];
    std::memcpy(kept, name.c_str(), name.size() + 1);
    id = NewClassLocked(kept);
    g_classes[base].sub[subclass].store(id, std::memory_order_relaxed);
  }
  return id;
}

const char* ClassName(int id) {
  if (id <= 0 || id >= kMaxClasses) return "<uninitialized>";
  const char* name = g_classes[id].name.load(std::memory_order_relaxed);
  return name != nullptr ? name : "<unregistered>";
}

int ClassLimit() { return next_class.load(std::memory_order_relaxed); }

}  // namespace internal
}  // namespace lockcheck
