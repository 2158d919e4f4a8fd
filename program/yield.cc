// program/yield.cc: see yield.h.
#include "program/yield.h"

#include <sched.h>

#include "lockcheck/schedule.h"
#include "program/rng.h"

namespace flowcheck {
namespace program {
namespace {

struct ThreadStream {
  const YieldPolicy* policy = nullptr;
  Rng rng{0};
};
thread_local ThreadStream t_stream;

// Lock points only: the named points (core's bit operations, the work
// queue, kernel windows) are for a controlled scheduler; yielding there too
// would change the uncontrolled runs' pressure.
void Hook(lockcheck::SchedulePoint point, const void*, void* arg) {
  if (point == lockcheck::SchedulePoint::kNamed) return;
  MaybeYield(static_cast<YieldPolicy*>(arg));
}

}  // namespace

YieldPolicy::YieldPolicy(uint64_t s, double probability)
    : seed(s),
      threshold(probability >= 1.0 ? (1ull << 32)
                                   : static_cast<uint64_t>(probability * 4294967296.0)) {}

void BindThreadStream(YieldPolicy* policy, uint64_t index) {
  t_stream.policy = policy;
  t_stream.rng = Rng(StreamSeed(policy->seed ^ 0x5bd1e995ull, index));
}

void MaybeYield(YieldPolicy* policy) {
  if (policy == nullptr || policy->threshold == 0) return;
  ThreadStream& s = t_stream;
  if (s.policy != policy) {
    BindThreadStream(policy, policy->next_unbound_stream.fetch_add(1, std::memory_order_relaxed));
  }
  uint64_t draw = s.rng.Next();
  if ((draw >> 32) >= policy->threshold) return;
  policy->yields.fetch_add(1, std::memory_order_relaxed);
  if (draw & 1) {
    sched_yield();
  } else {
    // A short spin: long enough for the other core to run a critical section.
    volatile uint32_t sink = 0;
    for (uint32_t i = 0, n = 16 + static_cast<uint32_t>((draw >> 1) & 1023); i < n; ++i) sink = sink + i;
  }
}

void InstallYieldHook(YieldPolicy* policy) { lockcheck::SetScheduleHook(&Hook, policy); }

void RemoveYieldHook() { lockcheck::SetScheduleHook(nullptr, nullptr); }

}  // namespace program
}  // namespace flowcheck
