// program/counters.h: internal to the engine. What a stress run counts per
// thread: ops, check rounds, and each op's outcome. StressResult::counters
// carries the totals by name (kCounterNames), e.g. "setup_eagain".
#ifndef FLOWCHECK_PROGRAM_COUNTERS_H_
#define FLOWCHECK_PROGRAM_COUNTERS_H_

#include <atomic>
#include <cstdint>

namespace flowcheck {
namespace program {

enum Counter {
  kOps, kChecks,
  kSetupOk, kSetupEagain, kGrantedByWakeup, kGrantedByRetry, kGiveUp, kRetryEagain,
  kReleases, kUses, kRarrWaits, kRarrGrants, kRarrReleases, kRarrFlushes, kResyncAcks,
  kBareReserved, kBareEagainFull, kBareReleased, kResyncs, kResyncsAccepted,
  kSegmentsSetUp, kSegmentsQueued, kSegmentsCleared,
  kNumCounters
};
extern const char* const kCounterNames[kNumCounters];

// One thread's counters: written by that thread only, read by anyone
// (relaxed atomics: progress lines and the watchdog read them live).
struct Counters {
  std::atomic<uint64_t> value[kNumCounters] = {};

  void Count(Counter c, uint64_t n = 1) {
    value[c].store(value[c].load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  uint64_t Get(Counter c) const { return value[c].load(std::memory_order_relaxed); }
};

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_COUNTERS_H_
