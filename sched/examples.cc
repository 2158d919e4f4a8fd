// sched/examples.cc: small lockcheck-only scenarios, registered for
// //sched:sched_examples and used by sched's tests. Each is kernel-style code
// (spinlock_t, spin_lock, ...) with or without a real concurrency bug.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "common/strings.h"
#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/spinlock.h"
#include "sched/cli.h"
#include "sched/sched.h"

namespace sched {
namespace {

bool IntParam(const ScenarioParams& p, const char* key, int min, int max, int* out,
              std::string* error) {
  const std::string& v = p.at(key);
  if (!flowcheck::SimpleAtoi(v, out) || *out < min || *out > max) {
    *error = std::string("parameter ") + key + "=" + v + " is not a number in " +
             std::to_string(min) + ".." + std::to_string(max);
    return false;
  }
  return true;
}

bool ChoiceParam(const ScenarioParams& p, const char* key, const char* a, const char* b, bool* is_a,
                 std::string* error) {
  const std::string& v = p.at(key);
  if (v != a && v != b) {
    *error = std::string("parameter ") + key + " must be " + a + " or " + b;
    return false;
  }
  *is_a = v == a;
  return true;
}

std::string HexMask(unsigned long mask) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%lx", mask);
  return buf;
}

// ---- bitmap_alloc: a test-then-set that drops the lock in between ----------
struct Bitmap {
  spinlock_t lock;
  unsigned long mask ABSL_GUARDED_BY(lock) = 0;
  int got[kMaxThreads] = {};
};

int AllocSplit(Bitmap* b) {
  spin_lock(&b->lock);
  const int bit = __builtin_ctzl(~b->mask);  // ffz: test...
  spin_unlock(&b->lock);
  spin_lock(&b->lock);
  b->mask |= 1ul << bit;  // ...then set, after another thread could take it
  spin_unlock(&b->lock);
  return bit;
}

int AllocAtomic(Bitmap* b) {
  spin_lock(&b->lock);
  const int bit = __builtin_ctzl(~b->mask);
  b->mask |= 1ul << bit;
  spin_unlock(&b->lock);
  return bit;
}

const bool kBitmap = RegisterScenario(
    {"bitmap_alloc",
     "threads allocate one bit each; variant=split drops the lock between test and set (bug)",
     {{"variant", "split"}, {"threads", "2"}},
     [](const ScenarioParams& p, std::string* error) -> std::function<void()> {
       bool split;
       int threads;
       if (!ChoiceParam(p, "variant", "split", "atomic", &split, error) ||
           !IntParam(p, "threads", 1, 8, &threads, error)) {
         return nullptr;
       }
       return [split, threads] {
         auto b = std::make_shared<Bitmap>();
         spin_lock_init(&b->lock);
         for (int i = 0; i < threads; ++i) {
           Spawn("alloc-" + std::to_string(i),
                 [b, i, split] { b->got[i] = split ? AllocSplit(b.get()) : AllocAtomic(b.get()); });
         }
         SetStateProbe([b]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
           return "{\"mask\":\"" + HexMask(b->mask) + "\"}";
         });
         AtEnd([b, threads] {
           for (int i = 0; i < threads; ++i) {
             for (int j = i + 1; j < threads; ++j) {
               SCHED_CHECK(b->got[i] != b->got[j], "alloc-" + std::to_string(i) + " and alloc-" +
                                                       std::to_string(j) + " both got bit " +
                                                       std::to_string(b->got[i]));
             }
           }
         });
       };
     }});

// ---- bitmap_ops: threads run op lists over one bitmap ----------------------
// Parameters ops.0 .. ops.3: each thread's ops, comma-separated (the form
// the minimizer shrinks): alloc (test and set under one lock hold),
// alloc_split (the bug of bitmap_alloc: the lock is dropped between test and
// set), free (frees the thread's most recent bit), nop (lock and unlock: a
// padding op). Every alloc checks that nobody else owned the bit it set.
constexpr int kOpsThreads = 4;
enum class BitOp { kAlloc, kAllocSplit, kFree, kNop };

struct OwnedBitmap {
  spinlock_t lock;
  unsigned long mask ABSL_GUARDED_BY(lock) = 0;
  int owner[64] ABSL_GUARDED_BY(lock);
};

void RunBitOps(OwnedBitmap* b, int me, const std::vector<BitOp>& ops) {
  std::vector<int> mine;
  for (BitOp op : ops) {
    spin_lock(&b->lock);
    if (op == BitOp::kNop) {
      spin_unlock(&b->lock);
      continue;
    }
    if (op == BitOp::kFree) {
      if (!mine.empty()) {
        b->mask &= ~(1ul << mine.back());
        b->owner[mine.back()] = -1;
        mine.pop_back();
      }
      spin_unlock(&b->lock);
      continue;
    }
    const int bit = __builtin_ctzl(~b->mask);
    if (op == BitOp::kAllocSplit) {
      spin_unlock(&b->lock);
      spin_lock(&b->lock);
    }
    b->mask |= 1ul << bit;
    const int previous = b->owner[bit];
    b->owner[bit] = me;
    spin_unlock(&b->lock);
    mine.push_back(bit);
    SCHED_CHECK(previous < 0, "ops-" + std::to_string(me) + " set bit " + std::to_string(bit) +
                                  " that ops-" + std::to_string(previous) + " owns");
  }
}

bool ParseBitOps(const std::string& list, std::vector<BitOp>* out, std::string* error) {
  size_t start = 0;
  while (!list.empty() && start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    const std::string op = list.substr(start, comma - start);
    if (op == "alloc") {
      out->push_back(BitOp::kAlloc);
    } else if (op == "alloc_split") {
      out->push_back(BitOp::kAllocSplit);
    } else if (op == "free") {
      out->push_back(BitOp::kFree);
    } else if (op == "nop") {
      out->push_back(BitOp::kNop);
    } else {
      *error = "unknown op '" + op + "' (alloc, alloc_split, free, nop)";
      return false;
    }
    start = comma + 1;
  }
  return true;
}

const bool kBitmapOps = RegisterScenario(
    {"bitmap_ops",
     "4 threads run op lists ops.0..ops.3 (alloc, alloc_split: the bug, free, nop) on one bitmap",
     {{"ops.0", "alloc,free"}, {"ops.1", "alloc,free"}, {"ops.2", ""}, {"ops.3", ""}},
     [](const ScenarioParams& p, std::string* error) -> std::function<void()> {
       std::vector<std::vector<BitOp>> ops(kOpsThreads);
       for (int t = 0; t < kOpsThreads; ++t) {
         if (!ParseBitOps(p.at("ops." + std::to_string(t)), &ops[t], error)) return nullptr;
       }
       return [ops] {
         auto b = std::make_shared<OwnedBitmap>();
         spin_lock_init(&b->lock);
         [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS {  // no thread runs yet
           for (int& o : b->owner) o = -1;
         }();
         for (int t = 0; t < kOpsThreads; ++t) {
           Spawn("ops-" + std::to_string(t), [b, t, mine = ops[t]] { RunBitOps(b.get(), t, mine); });
         }
         // The timeline's state row: the mask and who owns each set bit.
         SetStateProbe([b]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
           std::string owners;
           for (int i = 0; i < 64; ++i) {
             if (b->owner[i] < 0) continue;
             owners += (owners.empty() ? "" : ",") + std::string("\"") + std::to_string(i) +
                       "\":\"ops-" + std::to_string(b->owner[i]) + "\"";
           }
           return "{\"mask\":\"" + HexMask(b->mask) + "\",\"owners\":{" + owners + "}}";
         });
       };
     }});

// ---- abba: two threads take two locks in opposite orders --------------------
// variant=classic: two lock classes (lockcheck sees the inversion itself).
// variant=nested: one class, the inner lock taken with spin_lock_nested in
// both threads: lockdep is told the nesting is ordered, sees no inversion, and
// only the scheduler's deadlock detection catches it.
struct TwoLocks {
  spinlock_t a, b;
};

const bool kAbba =
    RegisterScenario({"abba",
                      "two threads take locks a and b in opposite orders (deadlock)",
                      {{"variant", "classic"}},
                      [](const ScenarioParams& p, std::string* error) -> std::function<void()> {
                        bool classic;
                        if (!ChoiceParam(p, "variant", "classic", "nested", &classic, error))
                          return nullptr;
                        return [classic] {
                          auto s = std::make_shared<TwoLocks>();
                          if (classic) {
                            spin_lock_init(&s->a);
                            spin_lock_init(&s->b);
                          } else {
                            // One class, as two QPs' s_locks are.
                            auto init = [](spinlock_t* s_lock) { spin_lock_init(s_lock); };
                            init(&s->a);
                            init(&s->b);
                          }
                          auto take = [classic](spinlock_t* first, spinlock_t* second) {
                            spin_lock(first);
                            if (classic) {
                              spin_lock(second);
                            } else {
                              spin_lock_nested(second, SINGLE_DEPTH_NESTING);
                            }
                            spin_unlock(second);
                            spin_unlock(first);
                          };
                          Spawn("ab", [s, take] { take(&s->a, &s->b); });
                          Spawn("ba", [s, take] { take(&s->b, &s->a); });
                        };
                      }});

// ---- spin_wait: a thread spin-waits for a flag -----------------------------
// variant=lost: the setter sets the wrong flag, so the waiter spins forever
// (every strategy ends it at the step bound); variant=set: it terminates.
struct Flags {
  spinlock_t lock;
  bool ready ABSL_GUARDED_BY(lock) = false;
  bool other ABSL_GUARDED_BY(lock) = false;
};

const bool kSpinWait =
    RegisterScenario({"spin_wait",
                      "a waiter spins (with sched::Yield) on a flag; variant=lost never sets it",
                      {{"variant", "lost"}},
                      [](const ScenarioParams& p, std::string* error) -> std::function<void()> {
                        bool lost;
                        if (!ChoiceParam(p, "variant", "lost", "set", &lost, error)) return nullptr;
                        return [lost] {
                          auto f = std::make_shared<Flags>();
                          spin_lock_init(&f->lock);
                          Spawn("waiter", [f] {
                            for (;;) {
                              spin_lock(&f->lock);
                              const bool ready = f->ready;
                              spin_unlock(&f->lock);
                              if (ready) return;
                              Yield();
                            }
                          });
                          Spawn("setter", [f, lost] {
                            spin_lock(&f->lock);
                            (lost ? f->other : f->ready) = true;
                            spin_unlock(&f->lock);
                          });
                        };
                      }});

// ---- flow_mask_canary: TSan must see an unlocked flow_mask update ----------
struct Ctx {
  spinlock_t exp_lock;
  unsigned long flow_mask = 0;  // deliberately not GUARDED_BY: locked=0 races
};

__attribute__((noinline)) void FlowMaskCanarySetBitUnlocked(Ctx* rcd, int bit) {
  rcd->flow_mask |= 1ul << bit;
}

__attribute__((noinline)) void FlowMaskCanarySetBitLocked(Ctx* rcd, int bit) {
  spin_lock(&rcd->exp_lock);
  rcd->flow_mask |= 1ul << bit;
  spin_unlock(&rcd->exp_lock);
}

// race_after=N: the run's first N executions take exp_lock even with
// locked=0, so that the race first happens on logical threads that reuse an
// earlier execution's fibers or OS threads (switcher.h).
const bool kCanary = RegisterScenario(
    {"flow_mask_canary",
     "two threads set a bit of flow_mask; locked=0 without exp_lock (a race TSan must report) "
     "after the first race_after executions",
     {{"locked", "0"}, {"race_after", "0"}},
     [](const ScenarioParams& p, std::string* error) -> std::function<void()> {
       int locked, race_after;
       if (!IntParam(p, "locked", 0, 1, &locked, error) ||
           !IntParam(p, "race_after", 0, 1000, &race_after, error)) {
         return nullptr;
       }
       auto executions = std::make_shared<int>(0);
       return [locked, race_after, executions] {
         const bool lock = locked || (*executions)++ < race_after;
         auto rcd = std::make_shared<Ctx>();
         spin_lock_init(&rcd->exp_lock);
         for (int i = 0; i < 2; ++i) {
           Spawn("setter-" + std::to_string(i), [rcd, i, locked = lock] {
             Point("before the update");
             if (locked) {
               FlowMaskCanarySetBitLocked(rcd.get(), i);
             } else {
               FlowMaskCanarySetBitUnlocked(rcd.get(), i);
             }
             // A decision point after the write: the hand-off from a thread
             // that has written to one that will write is then an ordinary
             // decision-point switch (not only a thread's end), so a switch
             // that leaked happens-before would hide the race in the runs
             // that take it (docs/sched.md, "ThreadSanitizer").
             Point("after the update");
           });
         }
         AtEnd([rcd] { SCHED_CHECK(rcd->flow_mask == 3, "a bit was lost"); });
       };
     }});

// ---- lock_ops: threads x ops increments under one lock (benchmark) ---------
struct Counter {
  spinlock_t lock;
  long value ABSL_GUARDED_BY(lock) = 0;
};

const bool kLockOps =
    RegisterScenario({"lock_ops",
                      "threads x ops increments of a counter under one spinlock (correct)",
                      {{"threads", "2"}, {"ops", "4"}},
                      [](const ScenarioParams& p, std::string* error) -> std::function<void()> {
                        int threads, ops;
                        if (!IntParam(p, "threads", 1, kMaxThreads, &threads, error) ||
                            !IntParam(p, "ops", 0, 1000000, &ops, error)) {
                          return nullptr;
                        }
                        return [threads, ops] {
                          auto c = std::make_shared<Counter>();
                          spin_lock_init(&c->lock);
                          for (int i = 0; i < threads; ++i) {
                            Spawn("worker-" + std::to_string(i), [c, ops] {
                              for (int k = 0; k < ops; ++k) {
                                spin_lock(&c->lock);
                                ++c->value;
                                spin_unlock(&c->lock);
                              }
                            });
                          }
                          AtEnd([c, threads, ops] {
                            spin_lock(&c->lock);
                            const long v = c->value;
                            spin_unlock(&c->lock);
                            SCHED_CHECK(v == static_cast<long>(threads) * ops, "lost increments");
                          });
                        };
                      }});

// ---- irq: a thread and the interrupt that takes the same lock --------------
// irqsave=1: the thread takes the lock with spin_lock_irqsave, so the
// interrupt never arrives inside its critical section: correct.
// irqsave=0: plain spin_lock: the interrupt can arrive while the lock is held
// and spin on it forever (lockcheck: inconsistent-irq-lock-state; with
// --lockcheck_reports=defer the scheduler shows the deadlock).
struct IrqShared {
  spinlock_t lock;
  int events ABSL_GUARDED_BY(lock) = 0;
};

const bool kIrq = RegisterScenario(
    {"irq",
     "a thread and its receive interrupt take one lock; irqsave=0 takes it with IRQs on",
     {{"irqsave", "1"}},
     [](const ScenarioParams& p, std::string* error) -> std::function<void()> {
       int irqsave;
       if (!IntParam(p, "irqsave", 0, 1, &irqsave, error)) return nullptr;
       return [irqsave] {
         auto s = std::make_shared<IrqShared>();
         spin_lock_init(&s->lock);
         const ThreadId process = Spawn("process", [s, irqsave] {
           if (irqsave) {
             unsigned long flags;
             spin_lock_irqsave(&s->lock, flags);
             Point("in the critical section");
             ++s->events;
             spin_unlock_irqrestore(&s->lock, flags);
           } else {
             spin_lock(&s->lock);
             Point("in the critical section");
             ++s->events;
             spin_unlock(&s->lock);
           }
           Point("after");
         });
         ThreadOptions irq;
         irq.interrupts = process;
         Spawn(
             "rcv-irq",
             [s] {
               spin_lock(&s->lock);
               ++s->events;
               spin_unlock(&s->lock);
             },
             irq);
       };
     }});

// ---- exit_holding_lock: a thread returns with a lock held ------------------
struct OneLock {
  spinlock_t lock;
};

const bool kExitHolding = RegisterScenario(
    {"exit_holding_lock",
     "a thread returns with a lock held (lockcheck reports it)",
     {},
     [](const ScenarioParams&, std::string*) -> std::function<void()> {
       return [] {
         auto s = std::make_shared<OneLock>();
         spin_lock_init(&s->lock);
         Spawn("leaker", [s]() ABSL_NO_THREAD_SAFETY_ANALYSIS { spin_lock(&s->lock); });
         Spawn("other", [] { Point("other"); });
       };
     }});

}  // namespace
}  // namespace sched
