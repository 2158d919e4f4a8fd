// stress/config.h: what a stress run does, and how to say it again.
//
// A StressConfig (the seed, the sizes, the op mix knobs) fully determines
// each thread's op list and yield decisions. The interleaving is the OS
// scheduler's: a rerun repeats the same sequences under the same pressure,
// not the same race. RerunCommand() renders a config as the exact command
// line that repeats the run; every failure prints it. stress_main fills a
// config from Abseil flags (flags.h); tests build one directly.
#ifndef FLOWCHECK_STRESS_CONFIG_H_
#define FLOWCHECK_STRESS_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

namespace flowcheck {
namespace stress {

struct StressConfig {
  // Op threads ("stress-<i>"): each owns qps_per_thread QPs and drives them.
  int threads = 4;
  // Ops each op thread runs; -1: 2000 when seconds == 0, else no limit.
  int64_t ops_per_thread = -1;
  // Wall-clock limit in seconds (0: none). Checked at quiescent points.
  double seconds = 0;
  // Receive contexts; QP j of the run lives on context j % contexts.
  int contexts = 1;
  int qps_per_thread = 2;
  // Run seed; 0 means "pick one at random" (the chosen seed is printed).
  uint64_t seed = 0;
  // Probability of a yield or short spin at each lockcheck schedule point
  // (every spin_lock / spin_unlock) and inside the "use the flow" phase.
  double yield_probability = 0.05;
  // No progress for this long is a watchdog failure (report + abort).
  double watchdog_seconds = 30;
  // Op-thread ops between quiescent points (all threads park, full checks).
  int quiescent_every = 500;
  // Worker threads running the work queue (trigger_work, send work).
  int workers = 2;
  // Emulated receive-interrupt thread: bare reservations and RESYNCs under
  // exp_lock in hardirq context.
  bool irq_thread = true;
  // Bare (QP-less) flow reservations one op thread may hold at once; they
  // squeeze the 32 flows so that QPs wait on flow_queue.
  int bare_per_thread = 7;
  // After giving up on a waiting QP (flush), pass the wakeup on to the new
  // head of flow_queue. The kernel does NOT (see docs/stress.md, "flush
  // strands the next waiter"); false runs the kernel's exact sequence, and
  // the no-lost-wakeup check then reports that hazard.
  bool flush_handoff = true;
  // Controlled scheduling (docs/stress.md, "Controlled runs"): "off" (the
  // OS schedules the threads, as above), or "random", "pct", "dfs": many
  // short executions, each one logical thread at a time (sched/), op lists
  // of sched_ops ops per thread drawn from (seed, execution).
  std::string sched = "off";
  int sched_depth = 3;          // pct: the bug depth d
  int max_preemptions = 2;      // dfs: the preemption bound (-1: none)
  int64_t sched_executions = 0; // cap on executions (0: --seconds, else 1000; dfs: exhaustion)
  int sched_ops = 4;            // ops per op thread and for rcv-irq, per execution
  int64_t sched_programs = 1;   // dfs: programs 0..N-1 (program p: execution p's lists)
  // Flows left free when an execution starts (the others are held as bare
  // flows, spread over the op threads): a few ops then contend for them.
  int sched_free_flows = 1;
  // An execution with more decisions than this fails [step-bound] (a
  // livelock or starvation). 0: derived from the program's size,
  // DefaultMaxSteps(): an execution's decisions grow with its ops.
  int64_t max_steps = 0;
  // Where a failing execution's schedule file goes (sched/run.h): a file or
  // a directory; "" = the directory the command was run in.
  std::string schedule_out;
  // Where to write the JSON summary ("" = nowhere).
  std::string json_out;
  // Seconds between progress lines on stdout (0 = none).
  double progress_every = 0;
};

// ops_per_thread with -1 resolved; 0 = no limit.
int64_t EffectiveOpsPerThread(const StressConfig& c);

// "" if `c` is usable, else what is wrong with it (one line). Every number
// must be finite (NaN and infinities are rejected) and within its range.
std::string Validate(const StressConfig& c);

// A random nonzero seed: what seed 0 means.
uint64_t RandomSeed();

// The flags of `c` that differ from the defaults, --seed always first,
// --json_out and --progress_every left out (they do not change the run).
std::vector<std::string> RerunFlags(const StressConfig& c);

// The exact command that reruns `c`, e.g.
//   bazel run --config=tsan //stress:stress_main -- --seed=42 --threads=8
// (--config=tsan when this binary is a TSan build).
std::string RerunCommand(const StressConfig& c);

// True unless sched is "off".
inline bool Controlled(const StressConfig& c) { return c.sched != "off"; }

// The step bound of a controlled execution when --max_steps is 0: a base
// plus an allowance per op of the program (each op thread's and rcv-irq's
// --sched_ops), so that a large program that still makes progress is not
// taken for a livelock. docs/stress.md says how the allowance was measured.
inline int64_t DefaultMaxSteps(const StressConfig& c) {
  constexpr int64_t kBase = 10000, kPerOp = 200;
  return kBase + kPerOp * (c.threads + (c.irq_thread ? 1 : 0)) * c.sched_ops;
}
// --max_steps, or DefaultMaxSteps when it is 0.
inline int64_t MaxSteps(const StressConfig& c) {
  return c.max_steps > 0 ? c.max_steps : DefaultMaxSteps(c);
}

// True when built with ThreadSanitizer.
bool BuiltWithTsan();

}  // namespace stress
}  // namespace flowcheck

#endif  // FLOWCHECK_STRESS_CONFIG_H_
