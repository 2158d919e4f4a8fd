// program/yield.h: interleaving pressure for a machine with few cores.
//
// On 2 cores, 4+ threads mostly run their critical sections whole; the
// interesting interleavings (a thread preempted between two locks, or right
// after a release) are rare. The yield hook makes them common: installed as
// lockcheck's schedule hook, it runs at every spin_lock (before spinning) and
// spin_unlock (after releasing), and with probability p it either gives the
// CPU away (sched_yield) or spins a short random while. Each thread draws from
// its own generator seeded from the run seed and the thread's index, so the
// pressure is reproducible per thread (the OS still picks who runs next).
//
//   YieldPolicy policy(seed, 0.05);
//   InstallYieldHook(&policy);          // no other thread at a schedule point
//   std::thread t([&] { BindThreadStream(&policy, 3); ... });
//   ...
//   RemoveYieldHook();
//
// The hook takes no lock and adds no happens-before edge (thread-local state
// only), so it hides no race from TSan.
#ifndef FLOWCHECK_PROGRAM_YIELD_H_
#define FLOWCHECK_PROGRAM_YIELD_H_

#include <atomic>
#include <cstdint>

namespace flowcheck {
namespace program {

struct YieldPolicy {
  YieldPolicy(uint64_t seed, double probability);
  const uint64_t seed;
  const uint64_t threshold;  // yield when a 32-bit draw is below this
  // Threads that never called BindThreadStream (work queue workers) get
  // streams 1000, 1001, ... in the order they first reach a schedule point.
  std::atomic<uint64_t> next_unbound_stream{1000};
  // Yields and spins done (statistics, relaxed).
  std::atomic<uint64_t> yields{0};
};

// Binds the calling thread's draws to stream `index` of `policy`.
void BindThreadStream(YieldPolicy* policy, uint64_t index);

// Maybe yields or spins, per the calling thread's stream (the "use the flow"
// phase of an op calls this too). No-op if the thread has no policy and
// none is installed.
void MaybeYield(YieldPolicy* policy);

// lockcheck::SetScheduleHook with MaybeYield; RemoveYieldHook uninstalls.
// Call while no other thread can be at a schedule point.
void InstallYieldHook(YieldPolicy* policy);
void RemoveYieldHook();

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_YIELD_H_
