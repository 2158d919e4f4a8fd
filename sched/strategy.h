// sched/strategy.h: the one interface every exploration strategy implements
// (the shape of awslabs/shuttle's Scheduler), and the factories, one file
// each: random_strategy.cc, pct_strategy.cc, dfs_strategy.cc,
// replay_strategy.cc, guided_strategy.cc.
//
// The runtime asks the strategy, at every decision point, which runnable
// thread goes next. It records every answer itself (the decision list of the
// schedule file), so a strategy does not have to know how to be replayed:
// replaying is its own strategy.
#ifndef FLOWCHECK_SCHED_STRATEGY_H_
#define FLOWCHECK_SCHED_STRATEGY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/splitmix64.h"
#include "sched/schedule_file.h"

namespace sched {

// What the runtime knows at one decision.
struct Decision {
  uint64_t step = 0;              // index of this decision in the execution
  int current = -1;               // the thread that reached the point; -1 at the start
  bool current_runnable = false;  // it could go on (switching away preempts it)
  bool yielding = false;          // it called Yield: switching away is no preemption
  uint64_t runnable = 0;          // bit i: thread i may run now (never 0)
  int num_threads = 0;            // threads spawned so far
};

class Strategy {
 public:
  virtual ~Strategy() = default;

  // "random", "pct", "dfs", "replay".
  virtual const char* name() const = 0;

  // Prepares execution `index` (0, 1, ...). False: no execution left (the
  // limit is reached or, for dfs, the space is exhausted).
  virtual bool BeginExecution(uint64_t index) = 0;

  // Thread `thread` was spawned (priorities for pct).
  virtual void OnSpawn(int thread) { (void)thread; }

  // The next thread: one of d.runnable. -1 means the execution does not
  // follow the strategy's script (dfs prefix): *divergence then says how,
  // and the runtime reports uncontrolled nondeterminism. kAbandonExecution
  // ends the execution quietly: not a failure, not counted (a dfs shard at a
  // branch none of whose alternatives are its own).
  virtual int Choose(const Decision& d, std::string* divergence) = 0;

  // The program execution `execution` runs (sched::ProgramIndex): dfs walks
  // them in order; the others take execution % num_programs.
  virtual uint64_t Program(uint64_t execution) const { return execution; }

  // After EndExecution: false if the execution was not one of this run's
  // schedules (abandoned, or another shard's): the run ignores its outcome.
  virtual bool Counted() const { return true; }

  // The execution ended after `steps` decisions with `threads` threads.
  virtual void EndExecution(uint64_t steps, int threads) {
    (void)steps;
    (void)threads;
  }

  // The line printed at the end of a run, e.g.
  // "flowcheck: dfs: explored 20 schedules, space exhausted".
  virtual std::string Summary(uint64_t executions, bool failed) const = 0;

  // True once a systematic strategy has run every schedule it covers.
  virtual bool exhausted() const { return false; }

  // Parameters that describe the strategy in a schedule file (depth=3).
  virtual std::map<std::string, std::string> Params() const { return {}; }

  // Replay: the first decision at which the execution left the schedule
  // (*step) and how (*how); false if it never did.
  virtual bool Divergence(uint64_t* step, std::string* how) const {
    (void)step;
    (void)how;
    return false;
  }
};

// Uniformly random among the runnable threads; execution i draws from a
// stream derived from (seed, i).
std::unique_ptr<Strategy> MakeRandomStrategy(uint64_t seed, uint64_t max_executions);

// PCT (probabilistic concurrency testing) of depth `depth` >= 1.
std::unique_ptr<Strategy> MakePctStrategy(uint64_t seed, int depth, uint64_t max_executions);

inline constexpr int kAbandonExecution = -2;

struct DfsOptions {
  int max_preemptions = 2;      // -1: no bound
  uint64_t max_executions = 0;  // complete schedules; 0: no limit
  uint64_t num_programs = 1;    // programs 0..num_programs-1, one after the other
  uint64_t shard_index = 0;     // this shard, of shard_count (Bazel test sharding)
  uint64_t shard_count = 1;
};

// Every schedule with at most `max_preemptions` preemptions of every program,
// depth-first, re-running the scenario for each; stops after
// `max_executions`. With shards, only this shard's part (dfs_strategy.cc).
std::unique_ptr<Strategy> MakeDfsStrategy(const DfsOptions& options);

// Follows `decisions`, once. Where the execution leaves them (a runnable set
// that differs, decisions left over) it records the first such decision
// (Divergence) and goes on leniently: the recorded thread if it can run,
// else the current thread if it can go on, else the lowest runnable one. The
// run then decides what the divergence means (run.h: the same code
// diverging is nondeterminism; changed code may be a fix).
std::unique_ptr<Strategy> MakeReplayStrategy(std::vector<ScheduledDecision> decisions);

// Once, leniently (the minimizer's candidates): at decision i the thread of
// decisions[i] if it is runnable, else the current thread if it can go on,
// else the lowest runnable thread. Never reports a divergence.
std::unique_ptr<Strategy> MakeGuidedStrategy(std::vector<ScheduledDecision> decisions);

// One execution steered by `bytes` (bytes_strategy.cc): each byte picks the
// current thread (b % n == 0) or the (b % n)-th other runnable one; past the
// end, no preemption. Lenient: never reports divergence.
std::unique_ptr<Strategy> MakeBytesStrategy(std::vector<uint8_t> bytes);
// The byte that makes the bytes strategy choose `chosen` (runnable) at `d`.
uint8_t ByteFor(const Decision& d, int chosen);

namespace internal {

// The strategies' draws from SplitMix64 (common/splitmix64.h).
class Rng {
 public:
  explicit Rng(uint64_t seed) : bits_(seed) {}
  uint64_t Next() { return bits_.Next(); }
  // Uniform in [0, n), n > 0 (rejection sampling: no modulo bias).
  uint64_t Below(uint64_t n) {
    const uint64_t limit = ~uint64_t{0} - (~uint64_t{0} % n);
    uint64_t x;
    do {
      x = Next();
    } while (x >= limit);
    return x % n;
  }

 private:
  flowcheck::SplitMix64 bits_;
};

// The seed of execution `index` of a run seeded `seed`.
inline uint64_t ExecutionSeed(uint64_t seed, uint64_t index) {
  Rng r(seed ^ (index * 0xd1b54a32d192ed03ull));
  r.Next();
  return r.Next();
}

// Number of set bits / the i-th set bit (i from 0) of a runnable mask.
inline int CountThreads(uint64_t mask) { return __builtin_popcountll(mask); }
inline int NthThread(uint64_t mask, int i) {
  for (; i > 0; --i) mask &= mask - 1;
  return __builtin_ctzll(mask);
}

}  // namespace internal
}  // namespace sched

#endif  // FLOWCHECK_SCHED_STRATEGY_H_
