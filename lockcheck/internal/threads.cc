#include "lockcheck/internal/threads.h"

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "lockcheck/internal/classes.h"
#include "lockcheck/internal/reporting.h"
#include "lockcheck/internal/stack.h"
#include "lockcheck/internal/tsan.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/report.h"

namespace lockcheck {
namespace internal {

__thread ThreadRecord* tls_record __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

// Constant-initialized globals, never function-local statics (tsan.h).
std::mutex registry_mu;
ThreadRecord* registry_head = nullptr;  // every record ever made, live or free
uint32_t next_thread_id = 1;            // under registry_mu

}  // namespace

void ReportExitWithLocksHeld(ThreadRecord* self) {
  int depth = HeldDepth(StateOf(self));
  const void* lock = self->held[0].lock.load(std::memory_order_relaxed);
  int cls = ClassOfTag(self->held[0].tag.load(std::memory_order_relaxed));
  const void* site = self->held[0].pc.load(std::memory_order_relaxed);
  if (!ClaimReport(Rule::kExitWithLocksHeld, cls, 0, site)) return;
  Report r = NewReport(Rule::kExitWithLocksHeld, lock, cls);
  r.message = r.thread + " is exiting while holding " + std::to_string(depth) +
              (depth == 1 ? " lock" : " locks") +
              ". They stay locked forever: any thread that takes them later "
              "spins for ever. The stack below is the thread's exit path.";
  Deliver(r);
}

namespace {

// Unregisters the thread when it exits. Constructed (and its destructor
// registered with the C++ runtime) at the thread's first lockcheck operation.
struct ExitHook {
  bool armed = false;
  ~ExitHook() {
    ThreadRecord* self = tls_record;
    if (!armed || self == nullptr) return;
    if (HeldDepth(StateOf(self)) > 0) ReportExitWithLocksHeld(self);
    {
      IgnoredLockGuard guard(registry_mu);
      self->live.store(false, std::memory_order_relaxed);
    }
    tls_record = nullptr;
  }
};
thread_local ExitHook exit_hook;

void CopyName(ThreadRecord* r, const char* name) {
  int i = 0;
  for (; name != nullptr && name[i] != '\0' && i < kThreadNameSize - 1; ++i) {
    r->name[i].store(name[i], std::memory_order_relaxed);
  }
  for (; i < kThreadNameSize; ++i) r->name[i].store('\0', std::memory_order_relaxed);
}

std::string NameOf(const ThreadRecord* r) {
  std::string s;
  for (int i = 0; i < kThreadNameSize; ++i) {
    char c = r->name[i].load(std::memory_order_relaxed);
    if (c == '\0') break;
    s += c;
  }
  return s;
}

std::string Label(uint32_t id, const std::string& name) {
  std::string s = "thread " + std::to_string(id);
  if (!name.empty()) s += " \"" + name + "\"";
  return s;
}

// A best-effort copy of one live thread's record, for DescribeAllThreads.
struct ThreadSnapshot {
  uint32_t id;
  std::string name;
  bool irqs_off;
  bool in_hardirq;
  struct Held {
    const void* lock;
    int cls;
    const void* pc;
  };
  std::vector<Held> held;
  const void* waiting_for;
  int waiting_class;
};

}  // namespace

ThreadRecord* NewThreadRecord() {
  ThreadRecord* r = nullptr;
  {
    IgnoredLockGuard guard(registry_mu);
    for (ThreadRecord* p = registry_head; p != nullptr; p = p->next) {
      if (!p->live.load(std::memory_order_relaxed)) {
        r = p;
        break;
      }
    }
    if (r == nullptr) {
      r = new ThreadRecord;  // never freed (see threads.h)
      r->next = registry_head;
      registry_head = r;
    }
    r->state.store(0, std::memory_order_relaxed);  // no locks, IRQs on
    r->waiting_for.store(nullptr, std::memory_order_relaxed);
    CopyName(r, "");
    r->id.store(next_thread_id++, std::memory_order_relaxed);
    r->live.store(true, std::memory_order_relaxed);
  }
  return r;
}

void RetireThreadRecord(ThreadRecord* r) {
  IgnoredLockGuard guard(registry_mu);
  r->live.store(false, std::memory_order_relaxed);
}

ThreadRecord* RegisterCurrentThread() {
  ThreadRecord* r = NewThreadRecord();
  tls_record = r;
  exit_hook.armed = true;
  return r;
}

std::string LabelOf(const ThreadRecord* r) { return Label(IdOf(r), NameOf(r)); }

std::string CurrentThreadLabel() { return LabelOf(Self()); }

std::vector<std::string> HeldLocksOfSelf() {
  ThreadRecord* self = Self();
  std::vector<std::string> out;
  int depth = HeldDepth(StateOf(self));
  for (int i = 0; i < depth; ++i) {
    const HeldEntry& h = self->held[i];
    out.push_back(LockLabel(ClassOfTag(h.tag.load(std::memory_order_relaxed)),
                            h.lock.load(std::memory_order_relaxed)) +
                  " acquired at " +
                  SymbolizeReturnAddress(h.pc.load(std::memory_order_relaxed)));
  }
  return out;
}

}  // namespace internal

uint32_t CurrentThreadId() { return internal::IdOf(internal::Self()); }

void SetThreadName(const char* name) { internal::CopyName(internal::Self(), name); }

std::string DescribeAllThreads() {
  using internal::ThreadRecord;
  using internal::ThreadSnapshot;
  std::vector<ThreadSnapshot> snaps;
  {
    internal::IgnoredLockGuard guard(internal::registry_mu);
    for (ThreadRecord* p = internal::registry_head; p != nullptr; p = p->next) {
      if (!p->live.load(std::memory_order_relaxed)) continue;
      ThreadSnapshot s;
      s.id = internal::IdOf(p);
      s.name = internal::NameOf(p);
      const uint32_t state = internal::StateOf(p);
      s.irqs_off = internal::IrqsOff(state);
      s.in_hardirq = internal::InHardirq(state);
      int depth = internal::HeldDepth(state);
      if (depth > internal::kMaxHeldLocks) depth = internal::kMaxHeldLocks;
      for (int i = 0; i < depth; ++i) {
        s.held.push_back({p->held[i].lock.load(std::memory_order_relaxed),
                          internal::ClassOfTag(p->held[i].tag.load(std::memory_order_relaxed)),
                          p->held[i].pc.load(std::memory_order_relaxed)});
      }
      s.waiting_for = p->waiting_for.load(std::memory_order_relaxed);
      s.waiting_class = p->waiting_class.load(std::memory_order_relaxed);
      snaps.push_back(std::move(s));
    }
  }
  // Oldest thread first.
  std::string out;
  for (auto it = snaps.rbegin(); it != snaps.rend(); ++it) {
    const ThreadSnapshot& s = *it;
    out += internal::Label(s.id, s.name);
    out += s.in_hardirq ? " (in hardirq)" : s.irqs_off ? " (irqs off)" : " (irqs on)";
    if (s.held.empty()) {
      out += ": holds no locks";
    } else {
      out += ": holds " + std::to_string(s.held.size()) +
             (s.held.size() == 1 ? " lock: " : " locks: ");
      for (size_t i = 0; i < s.held.size(); ++i) {
        if (i > 0) out += ", ";
        out += internal::LockLabel(s.held[i].cls, s.held[i].lock) + " acquired at " +
               internal::SymbolizeReturnAddress(s.held[i].pc);
      }
    }
    if (s.waiting_for != nullptr) {
      out += "; waiting for " + internal::LockLabel(s.waiting_class, s.waiting_for);
      // Who holds it, as far as this snapshot knows (lock pointers are only
      // compared, never dereferenced: the lock may be gone by now).
      for (const ThreadSnapshot& o : snaps) {
        for (const ThreadSnapshot::Held& h : o.held) {
          if (h.lock == s.waiting_for) out += " held by " + internal::Label(o.id, o.name);
        }
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace lockcheck
