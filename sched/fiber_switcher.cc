// sched/fiber_switcher.cc: logical threads as ucontext fibers on one OS
// thread (see switcher.h).
//
// Why ucontext and not a hand-written switch: swapcontext also saves the
// signal mask (one system call, most of its ~0.3 us), but it is the libc
// primitive ASan already knows (it intercepts swapcontext) and needs no
// per-architecture assembly. docs/sched.md has the measured cost.
#include <cxxabi.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "sched/sanitizers.h"
#include "sched/switcher.h"

namespace sched {
namespace internal {
namespace {

// The C++ runtime keeps, per OS thread, the exceptions being handled (a
// caught exception stays on that stack until its catch block ends) and the
// count of exceptions in flight. Fibers share the OS thread, so a switch
// inside a catch block would let another fiber's throw and catch land on
// top of it (std::current_exception then returns the other fiber's). Each
// fiber keeps its own copy, swapped at every switch, as Boost.Context does.
// The layout is the Itanium C++ ABI's __cxa_eh_globals: a pointer and an
// unsigned count (on x86-64, two words).
struct EhGlobals {
  void* words[2] = {nullptr, nullptr};
};
static_assert(sizeof(EhGlobals) == 2 * sizeof(void*), "two words");

void SwapEhGlobals(EhGlobals* save_into, const EhGlobals& load) {
  void* globals = abi::__cxa_get_globals();
  std::memcpy(save_into, globals, sizeof(EhGlobals));
  std::memcpy(globals, &load, sizeof(EhGlobals));
}

// The process-wide pool of spare fiber stacks (below the switcher).
void GiveBackStacks(size_t size, std::vector<char*>* stacks);
void TakePooledStack(size_t size, std::vector<char*>* into);

struct FiberContext : Context {
  ucontext_t uc;
  char* stack = nullptr;  // usable part (above the guard page); null: controller
  size_t stack_size = 0;
  ContextEntry entry = nullptr;
  void* arg = nullptr;
  void* tsan_fiber = nullptr;
  // Reuse (Create, Destroy): a context is ready for a new entry when it
  // never started (it begins in FiberMain) or is parked in Finish (it goes
  // on there, and FiberMain's loop runs the new entry).
  bool started = false;
  bool parked = false;
  // ASan's view of this context's stack; learned for the controller the
  // first time it is left.
  const void* asan_bottom = nullptr;
  size_t asan_size = 0;
  EhGlobals eh;  // this fiber's exception state while it is switched out
};

class FiberSwitcher : public Switcher {
 public:
  explicit FiberSwitcher(size_t stack_size) : stack_size_(RoundToPages(stack_size)) {
    current_switcher_ = this;
#if defined(FLOWCHECK_UNDER_TSAN)
    controller_.tsan_fiber = __tsan_get_current_fiber();
#endif
  }

  // The run's spare contexts end here (a parked fiber has no ignore on,
  // which TSan checks of a fiber it destroys); the stacks go back to the
  // process's pool for the next run.
  ~FiberSwitcher() override {
    for (FiberContext* c : spare_) Free(c);
    GiveBackStacks(stack_size_, &free_stacks_);
  }

  Context* controller() override { return &controller_; }

  Context* Create(ContextEntry entry, void* arg, const char* name) override {
    IgnoreScope ignore;
    // A context of an earlier execution of this run, with its stack and its
    // TSan fiber: creating and destroying a TSan fiber (its thread state,
    // shadow stack and creation stack) was a sixth of a controlled
    // execution under TSan (docs/sched.md, "Backends"). Reuse adds no
    // happens-before edge: the start token (runtime.cc) is the only edge into
    // a thread's start, as for a new fiber.
    if (!spare_.empty()) {
      FiberContext* c = spare_.back();
      spare_.pop_back();
      c->entry = entry;
      c->arg = arg;
#if defined(FLOWCHECK_UNDER_TSAN)
      __tsan_set_fiber_name(c->tsan_fiber, name);
#endif
      return c;
    }
    auto* c = new FiberContext;
    c->entry = entry;
    c->arg = arg;
    c->stack = TakeStack();
    c->stack_size = stack_size_;
    c->asan_bottom = c->stack;
    c->asan_size = stack_size_;
    if (getcontext(&c->uc) != 0) Die("getcontext");
    c->uc.uc_stack.ss_sp = c->stack;
    c->uc.uc_stack.ss_size = stack_size_;
    c->uc.uc_link = nullptr;
    // makecontext passes ints: the context pointer in two halves.
    const uintptr_t p = reinterpret_cast<uintptr_t>(c);
    makecontext(&c->uc, reinterpret_cast<void (*)()>(&FiberMain), 3, static_cast<unsigned>(p >> 32),
                static_cast<unsigned>(p & 0xffffffffu), static_cast<unsigned>(0));
    // makecontext has placed the entry frame; nothing reads the stack's
    // bounds from the context again but ASan's swapcontext interceptor, which
    // clears the shadow of the whole stack it switches to: 128 KiB of shadow
    // (an madvise and page faults) at every switch, and the redzones of the
    // fiber's live frames with it. With no size it leaves the shadow alone;
    // a reused stack is unpoisoned once, in TakeStack, and the fiber
    // annotations in Switch tell ASan where each stack is.
    c->uc.uc_stack.ss_size = 0;
#if defined(__x86_64__)
    // A null frame pointer ends frame-pointer stack walks (lockcheck's and
    // the sanitizers') at the fiber's first frame instead of wandering into
    // the stack of whoever made the context.
    c->uc.uc_mcontext.gregs[REG_RBP] = 0;
#endif
#if defined(FLOWCHECK_UNDER_TSAN)
    c->tsan_fiber = __tsan_create_fiber(0);
    __tsan_set_fiber_name(c->tsan_fiber, name);
#else
    (void)name;
#endif
    return c;
  }

  void Switch(Context* from_base, Context* to_base) override {
    IgnoreScope ignore;
    auto* from = static_cast<FiberContext*>(from_base);
    auto* to = static_cast<FiberContext*>(to_base);
#if defined(FLOWCHECK_UNDER_ASAN)
    void* fake_stack = nullptr;
    __sanitizer_start_switch_fiber(&fake_stack, to->asan_bottom, to->asan_size);
#endif
    leaving_ = from;
    SwapEhGlobals(&from->eh, to->eh);
#if defined(FLOWCHECK_UNDER_TSAN)
    __tsan_switch_to_fiber(to->tsan_fiber, __tsan_switch_to_fiber_no_sync);
#endif
    if (swapcontext(&from->uc, &to->uc) != 0) Die("swapcontext");
#if defined(FLOWCHECK_UNDER_ASAN)
    __sanitizer_finish_switch_fiber(fake_stack, &leaving_->asan_bottom, &leaving_->asan_size);
#endif
  }

  // Parks `from` until Create reuses it: then this returns, the entry
  // (runtime.cc's ThreadMain) returns, and FiberMain runs the new entry.
  void Finish(Context* from_base, Context* to_base) override {
    auto* from = static_cast<FiberContext*>(from_base);
    auto* to = static_cast<FiberContext*>(to_base);
#if defined(FLOWCHECK_UNDER_ASAN)
    void* fake_stack = nullptr;
#endif
    {
      // Ended before the switch: the run may end with this fiber parked,
      // and TSan checks that a fiber it destroys has no ignore left on.
      IgnoreScope ignore;
      from->parked = true;
#if defined(FLOWCHECK_UNDER_ASAN)
      __sanitizer_start_switch_fiber(&fake_stack, to->asan_bottom, to->asan_size);
#endif
      leaving_ = from;
      SwapEhGlobals(&from->eh, to->eh);
    }
#if defined(FLOWCHECK_UNDER_TSAN)
    __tsan_switch_to_fiber(to->tsan_fiber, __tsan_switch_to_fiber_no_sync);
#endif
    if (swapcontext(&from->uc, &to->uc) != 0) Die("swapcontext");
    // Resumed with a new entry. (Until here a reused context stays parked:
    // one an execution ends before it ran goes back to the spares.)
    IgnoreScope ignore;
    from->parked = false;
#if defined(FLOWCHECK_UNDER_ASAN)
    __sanitizer_finish_switch_fiber(fake_stack, &leaving_->asan_bottom, &leaving_->asan_size);
#endif
  }

  // A context ready for a new entry is kept for the run's next Create;
  // one that started and did not finish (not expected: the runtime resumes
  // every such thread to end it) is freed.
  void Destroy(Context* base) override {
    IgnoreScope ignore;
    auto* c = static_cast<FiberContext*>(base);
    if (c->parked || !c->started) {
      spare_.push_back(c);
    } else {
      Free(c);
    }
  }

 private:
  static void FiberMain(unsigned hi, unsigned lo, unsigned /*unused*/) {
    auto* c = reinterpret_cast<FiberContext*>((static_cast<uintptr_t>(hi) << 32) | lo);
    {
      IgnoreScope ignore;
      c->started = true;
#if defined(FLOWCHECK_UNDER_ASAN)
      FiberContext* left = current_switcher_->leaving_;
      __sanitizer_finish_switch_fiber(nullptr, &left->asan_bottom, &left->asan_size);
#endif
    }
    for (;;) {
      ContextEntry entry;
      void* arg;
      {
        IgnoreScope ignore;
        entry = c->entry;
        arg = c->arg;
        c->entry = nullptr;  // Create sets the next one before c resumes
      }
      entry(arg);  // ends with Finish, which returns once Create reuses c
      IgnoreScope ignore;
      if (c->entry == nullptr) Die("a fiber's entry returned without Finish");
    }
  }

  // Ends a context: its TSan fiber, and its stack back to free_stacks_ (the
  // next Create that finds no spare context takes it).
  void Free(FiberContext* c) {
#if defined(FLOWCHECK_UNDER_TSAN)
    __tsan_destroy_fiber(c->tsan_fiber);
#endif
    free_stacks_.push_back(c->stack);
    delete c;
  }

  [[noreturn]] static void Die(const char* what) {
    std::fprintf(stderr, "flowcheck: sched: %s failed: %s\n", what, std::strerror(errno));
    std::abort();
  }

  static size_t RoundToPages(size_t n) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
#if defined(FLOWCHECK_UNDER_TSAN) || defined(FLOWCHECK_UNDER_ASAN)
    if (n == 0) n = 1024 * 1024;
#else
    if (n == 0) n = 512 * 1024;
#endif
    return (n + page - 1) / page * page;
  }

  // Stacks are reused across executions and runs: one mmap per fiber ever
  // alive at once in the process, with a PROT_NONE guard page below, so an
  // overflow faults. (A fuzz target's input is a run of one execution: a
  // stack per run would be an mmap, page faults and an munmap per input.)
  char* TakeStack() {
    if (free_stacks_.empty()) TakePooledStack(stack_size_, &free_stacks_);
    if (!free_stacks_.empty()) {
      char* s = free_stacks_.back();
      free_stacks_.pop_back();
#if defined(FLOWCHECK_UNDER_ASAN)
      // Frames abandoned there (redzones of unwound frames) are stale.
      __asan_unpoison_memory_region(s, stack_size_);
#endif
      return s;
    }
    void* m = mmap(nullptr, stack_size_ + page_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) Die("mmap of a fiber stack");
    if (mprotect(m, page_, PROT_NONE) != 0) Die("mprotect of a stack guard page");
    return static_cast<char*>(m) + page_;
  }

  const size_t page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t stack_size_;
  FiberContext controller_;
  FiberContext* leaving_ = nullptr;  // the context being left, for ASan
  std::vector<char*> free_stacks_;
  std::vector<FiberContext*> spare_;  // ready for a new entry (Destroy)
  // The switcher of the fiber being started (FiberMain is static). One run
  // at a time per process (sched::Run's contract).
  static FiberSwitcher* current_switcher_;
};

FiberSwitcher* FiberSwitcher::current_switcher_ = nullptr;

// The process's spare stacks, by size. Runs are one at a time, but not
// always on one OS thread: a mutex, taken once per run and per new fiber.
std::mutex g_pool_mu;
std::map<size_t, std::vector<char*>>* g_pool = nullptr;  // never destroyed

void GiveBackStacks(size_t size, std::vector<char*>* stacks) {
  std::lock_guard<std::mutex> lock(g_pool_mu);
  if (g_pool == nullptr) g_pool = new std::map<size_t, std::vector<char*>>();
  std::vector<char*>& spare = (*g_pool)[size];
  spare.insert(spare.end(), stacks->begin(), stacks->end());
  stacks->clear();
}

void TakePooledStack(size_t size, std::vector<char*>* into) {
  std::lock_guard<std::mutex> lock(g_pool_mu);
  if (g_pool == nullptr) return;
  auto it = g_pool->find(size);
  if (it == g_pool->end() || it->second.empty()) return;
  into->push_back(it->second.back());
  it->second.pop_back();
}

}  // namespace

std::unique_ptr<Switcher> MakeFiberSwitcher(size_t stack_size) {
  return std::make_unique<FiberSwitcher>(stack_size);
}

}  // namespace internal
}  // namespace sched
