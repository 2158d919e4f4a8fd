// sched/sched.h: what scenario code calls. A scenario is ordinary harness
// code run under sched::Run (run.h); the scheduler runs its logical threads
// one at a time and decides, at every decision point, which one goes on.
//
//   sched::Run(options, [] {                       // setup, on the controller
//     auto s = std::make_shared<State>();          // fresh state per execution
//     spin_lock_init(&s->lock);
//     for (int i = 0; i < 2; ++i)
//       sched::Spawn("alloc-" + std::to_string(i), [s, i] { s->bit[i] = Alloc(s.get()); });
//     sched::AtEnd([s] { SCHED_CHECK(s->bit[0] != s->bit[1], "two threads got one bit"); });
//   });
//
// Decision points: every lockcheck spinlock acquire (before it; a thread that
// would wait for a lock another logical thread holds is not runnable until it
// is released), trylock (before; never blocks) and release (after), and the
// explicit sched::Point / Yield / BlockUntil / Join / Spawn below. Between two
// decision points a logical thread runs alone.
//
// Rules for scenario code:
//  * all state it shares is created in the setup function (or by its
//    threads), never kept from one execution to the next: every execution
//    must be a pure function of the schedule;
//  * waiting is done through lockcheck locks or the calls below, never by
//    blocking the OS thread (std::mutex, condition variables, sleep) and
//    never by spinning without a decision point (the loop would not end);
//  * thread_local variables are not per logical thread under the default
//    fiber backend (all logical threads share one OS thread): do not use them;
//  * an exception of type sched::internal::Cancelled is how the scheduler
//    ends a thread early (after a failure): a catch (...) must rethrow it.
// Outside a controlled run every call here is a no-op (Spawn and AtEnd then
// abort: they make no sense without a run), so harness code may call
// sched::Point unconditionally.
#ifndef FLOWCHECK_SCHED_SCHED_H_
#define FLOWCHECK_SCHED_SCHED_H_

#include <cstdint>
#include <functional>
#include <string>

namespace sched {

// A logical thread: 0, 1, 2, ... in spawn order within one execution.
using ThreadId = int;

// At most this many logical threads per execution.
inline constexpr int kMaxThreads = 64;

struct ThreadOptions {
  // Makes the thread an emulated hardware interrupt of thread `interrupts`
  // (on that thread's CPU). It starts only at a decision point where that
  // thread has lockcheck IRQs on (irqs_disabled() false, not itself in a
  // hardirq) or has ended; its whole body runs inside a
  // lockcheck::HardirqScope; and the interrupted thread does not run again
  // until the body returns. -1: an ordinary thread.
  //
  // Where that thread has IRQs on: at every decision point outside an
  // IRQ-disabled section, and among them just before spin_lock_irqsave /
  // spin_lock_irq disable IRQs and just after spin_unlock_irqrestore /
  // spin_unlock_irq re-enable them (lockcheck places those points there), so
  // an interrupt can land between two back-to-back irqsave sections.
  ThreadId interrupts = -1;
  // An interrupt's body runs `runs` times (>= 1), each time at a point the
  // scheduler picks where the interrupted thread has IRQs on (or has ended);
  // between two runs the interrupted thread may go on. Ignored for ordinary
  // threads.
  int runs = 1;
};

// Creates a logical thread that will run `body` when the scheduler first
// picks it. From the setup function (before any thread runs) or from a
// logical thread (then a decision point follows). Everything the caller did
// before Spawn happens before the new thread's start, as with pthread_create.
ThreadId Spawn(std::string name, std::function<void()> body, ThreadOptions options = {});

// A decision point: another thread may run now. `label` names the point in
// traces and reports (a string literal: it is kept by pointer).
void Point(const char* label = "point");

// A decision point where the calling thread cannot make progress until some
// other thread runs (a spin-wait iteration): switching away is not counted as
// a preemption, and the systematic strategies prefer another thread.
void Yield();

// Blocks the calling thread until `ready()` is true (checked by the scheduler
// at every decision point, with no happens-before edge: the code must still
// synchronize as it would for real, e.g. take the lock that guards what
// `ready` reads). `what` names the wait in deadlock reports.
void BlockUntil(const char* what, std::function<bool()> ready);

// Blocks until thread `t` has ended; its whole run happens before the return.
void Join(ThreadId t);

// Runs `check` on the controller after every thread ended, if the execution
// has not failed by then; everything every thread did happens before it.
void AtEnd(std::function<void()> check);

// Ends the execution as a failure: the schedule is written and `message`
// leads the report. In a logical thread, from setup or from an AtEnd check.
[[noreturn]] void Fail(const std::string& message);

// Installs the scenario's state probe for this execution (call it from the
// setup). When a trace is recorded (--trace_out, --timeline) the probe is
// called after every step, with every logical thread stopped, and its text
// is shown under that step in the timeline. It must return a small JSON
// object, e.g. {"flow_mask":"0x3","queues":{"flow":"qp1"}}, only read state
// (no locks, no sched calls: it runs inside a decision) and keep what it
// captures alive itself (a shared_ptr to the state). Without a trace it is
// never called. Outside a run: a no-op.
void SetStateProbe(std::function<std::string()> probe);

// The program the current execution runs, 0..Options::num_programs-1 (run.h):
// the setup builds that one. 0 when the run has one program, or outside one.
uint64_t ProgramIndex();

// True in a logical thread of a running controlled execution.
bool UnderControl();

// The calling logical thread's id (-1 outside one).
ThreadId CurrentThread();

}  // namespace sched

// SCHED_CHECK(cond, message): sched::Fail with the condition's text, file and
// line and `message` (a std::string expression) unless `cond` holds.
#define SCHED_CHECK(cond, message)                                            \
  do {                                                                        \
    if (!(cond)) {                                                            \
      ::sched::Fail(std::string("check failed: " #cond " (" __FILE__ ":") +   \
                    std::to_string(__LINE__) + "): " + std::string(message)); \
    }                                                                         \
  } while (0)

#endif  // FLOWCHECK_SCHED_SCHED_H_
