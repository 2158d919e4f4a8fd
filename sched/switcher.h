// sched/switcher.h: how the scheduler hands the one running slot from one
// logical thread to another. Two implementations, chosen per run
// (Options::backend):
//
//   fibers (default): every logical thread is a ucontext fiber with its own
//     stack, all on the OS thread that called sched::Run. A hand-off is one
//     swapcontext (~0.3 us). TSan sees each fiber as a thread
//     (__tsan_create_fiber, switched with __tsan_switch_to_fiber_no_sync);
//     ASan is told about every stack change (__sanitizer_start/
//     finish_switch_fiber). thread_local variables in scenario code are
//     shared by all logical threads: unsupported.
//   baton: every logical thread runs on an OS thread of a pool (kept for the
//     whole run); the running one passes a baton (one mutex, a condition
//     variable per OS thread) to the next. A hand-off is two futex wake-ups
//     (~30 us on a 2-core VM). Kept for scenario code that cannot run on a
//     fiber, and as the measured alternative (docs/sched.md).
//
// Contract common to both: a Context runs on exactly one stack; Switch and
// Finish are called by the context that is running (`from`); the switcher
// hides its own hand-off from TSan (sanitizers.h) and adds no happens-before
// edge. Only the controller (the context that called sched::Run) calls Create
// and Destroy.
#ifndef FLOWCHECK_SCHED_SWITCHER_H_
#define FLOWCHECK_SCHED_SWITCHER_H_

#include <cstddef>
#include <memory>

namespace sched {
namespace internal {

using ContextEntry = void (*)(void* arg);

// One logical thread's execution context (or the controller's).
struct Context {
  virtual ~Context() = default;
};

class Switcher {
 public:
  virtual ~Switcher() = default;

  // The calling context of sched::Run.
  virtual Context* controller() = 0;

  // A context that runs entry(arg) when it is first switched to. `name`
  // names it in sanitizer reports. The entry must end with Finish and then
  // return at once.
  virtual Context* Create(ContextEntry entry, void* arg, const char* name) = 0;

  // Suspends `from` (the caller) and resumes `to`; returns when some context
  // switches back to `from`.
  virtual void Switch(Context* from, Context* to) = 0;

  // `from` (the caller) is done: resumes `to`. It returns when `from` may
  // run a new entry (fibers: when Create reuses it; the baton: at once), and
  // the caller's entry must then return without touching anything shared.
  virtual void Finish(Context* from, Context* to) = 0;

  // Ends a context that finished or never started. Both backends keep its
  // stack and sanitizer thread for the run's next Create (a fiber, or a
  // pooled OS thread), which adds no happens-before edge.
  virtual void Destroy(Context* c) = 0;
};

// `stack_size` 0: the default (512 KiB, 1 MiB under a sanitizer).
std::unique_ptr<Switcher> MakeFiberSwitcher(size_t stack_size);
std::unique_ptr<Switcher> MakeBatonSwitcher();

}  // namespace internal
}  // namespace sched

#endif  // FLOWCHECK_SCHED_SWITCHER_H_
