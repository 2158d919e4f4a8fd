// program/config.h: what a stress run does, and how to say it again.
//
// A StressConfig (the seed, the sizes, the op mix knobs) fully determines
// each thread's op list and yield decisions. The interleaving is the OS
// scheduler's: a rerun repeats the same sequences under the same pressure,
// not the same race. RerunCommand() renders a config as the exact command
// line that repeats the run; every failure prints it. stress_main fills a
// config from Abseil flags (flags.h); tests build one directly.
#ifndef FLOWCHECK_PROGRAM_CONFIG_H_
#define FLOWCHECK_PROGRAM_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace flowcheck {
namespace program {

// --qps_per_thread's upper bound (ValidateConfig; ProgramSpace sizes its
// per-slot state by it).
inline constexpr int kMaxQpsPerThread = 64;

// Every field of StressConfig, declared once:
//   X(type, name, default, uses, help)
// From this one list come the struct below, the stress_main flag of the
// same name with `help` as its text (stress/flags.cc), the rerun command
// (RerunFlags: the fields marked kRerun that differ from the default,
// --seed always first), a controlled run's schedule-file params (kParam,
// program/controlled.cc) and the config members of the JSON summary (kJson,
// program/result_json.cc), each in this order. Adding a knob is one row.
// The one default that differs between a StressConfig and the command
// line: --progress_every is 1 on the command line (kFlagProgressEvery),
// 0 (quiet) for a config a test builds.
enum ConfigUse : unsigned { kNoUse = 0, kRerun = 1, kParam = 2, kJson = 4 };

#define FLOWCHECK_STRESS_CONFIG_FIELDS(X)                                                      \
  X(int, threads, 4, kRerun | kParam | kJson, "op threads (each owns --qps_per_thread QPs)")  \
  X(int64_t, ops_per_thread, -1, kRerun,                                                       \
    "ops per op thread; 0 = no limit; -1 = 2000 without --seconds, else no limit")            \
  X(double, seconds, 0, kRerun,                                                                \
    "wall-clock limit in seconds (0 = none); checked at quiescent points")                    \
  X(int, contexts, 1, kRerun | kParam | kJson, "receive contexts (QP j on context j % contexts)") \
  X(int, qps_per_thread, 2, kRerun | kParam | kJson, "QPs each op thread owns")                \
  /* seed: also the first of every rerun command, always */                                   \
  X(uint64_t, seed, 0, kParam, "run seed; 0 = random (always printed)")                        \
  X(double, yield_probability, 0.05, kRerun | kJson,                                           \
    "probability of a yield or short spin at each lock schedule point (every spin_lock / "    \
    "spin_unlock) and inside the \"use the flow\" phase")                                     \
  X(double, watchdog_seconds, 30, kRerun,                                                      \
    "no progress for this long = a watchdog failure (report + abort)")                        \
  X(int, quiescent_every, 500, kRerun,                                                         \
    "op-thread ops between quiescent points (all threads park, full checks at rest)")         \
  X(int, workers, 2, kRerun | kParam, "work queue worker threads (trigger_work, send work)")   \
  X(bool, irq_thread, true, kRerun | kParam,                                                   \
    "run the emulated receive interrupt (hardirq bare reservations, RESYNC under exp_lock)")   \
  X(int, bare_per_thread, 7, kRerun | kParam,                                                  \
    "bare flow reservations an op thread may hold (they squeeze the 32 flows, so that QPs "   \
    "wait on flow_queue)")                                                                    \
  /* The kernel does NOT hand the wakeup on (docs/stress.md, "flush strands */                \
  /* the next waiter"); false runs its exact sequence and the no-lost-wakeup */               \
  /* check reports that hazard. */                                                            \
  X(bool, flush_handoff, true, kRerun | kParam,                                                \
    "after a flush, wake the new head of flow_queue (the kernel does not; see "               \
    "docs/stress.md)")                                                                        \
  X(bool, strict, false, kRerun | kParam,                                                      \
    "upstream divergences (the kernel's known hazards, docs/kernel-hazards.md) fail the run "  \
    "too, as the fuzz targets' --strict")                                                     \
  X(std::string, sched, "off", kRerun,                                                         \
    "off (the OS schedules the threads) or random, pct, dfs: controlled executions, one "     \
    "logical thread at a time (docs/stress.md, \"Controlled runs\")")                         \
  X(int, sched_depth, 3, kRerun, "--sched=pct: the bug depth d")                               \
  X(int, max_preemptions, 2, kRerun, "--sched=dfs: preemption bound (-1: unbounded)")          \
  X(int64_t, sched_executions, 0, kRerun,                                                      \
    "--sched: cap on executions (0: until --seconds, or 1000 without it; dfs: until "         \
    "exhausted)")                                                                             \
  X(int, sched_ops, 4, kRerun | kParam, "--sched: ops per thread per execution")               \
  X(int64_t, sched_programs, 1, kRerun,                                                        \
    "--sched=dfs: explore every schedule of programs 0..N-1 in turn (program p: the op "      \
    "lists random and pct draw for execution p); 1: execution 0's lists only")                \
  X(int, sched_program_ops, 0, kRerun,                                                         \
    "--sched=dfs: explore every program of up to N ops per thread (and rcv-irq) drawn from "  \
    "the op table, smallest first (program/program_space.h); 0: --sched_programs' lists")      \
  X(int, sched_segment_percent, 0, kRerun | kJson,                                            \
    "--sched=random|pct: the share (0..100) of a QP's ops in a drawn list that are READ "     \
    "segments (segment, segment_done: the RcvArray side) while it owns a flow; 0 keeps the "  \
    "lists of earlier versions")                                                              \
  X(int, sched_free_flows, 1, kRerun | kParam,                                                 \
    "--sched: flows left free at the start of an execution (the rest held as bare flows, "    \
    "spread over the op threads)")                                                            \
  /* 0: DefaultMaxSteps(): an execution's decisions grow with its ops. */                     \
  X(int64_t, max_steps, 0, kRerun,                                                             \
    "--sched: an execution with more decisions fails [step-bound] (0: 10000 + 200 per op "    \
    "of the program, ops = (--threads + rcv-irq) x --sched_ops or --sched_program_ops)")                             \
  X(std::string, schedule_out, "", kNoUse,                                                     \
    "--sched: where a failing schedule is written (file or directory; \"\": the directory "   \
    "the command was run in)")                                                                \
  X(std::string, json_out, "", kNoUse, "write a JSON summary here")                            \
  X(double, progress_every, 0, kNoUse, "seconds between progress lines (0 = none)")

// --progress_every's command-line default (the field's is 0).
inline constexpr double kFlagProgressEvery = 1.0;

struct StressConfig {
#define FLOWCHECK_STRESS_CONFIG_MEMBER(type, name, def, uses, help) type name = def;
  FLOWCHECK_STRESS_CONFIG_FIELDS(FLOWCHECK_STRESS_CONFIG_MEMBER)
#undef FLOWCHECK_STRESS_CONFIG_MEMBER
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

// A field's value from its text, as a flag (--name=TEXT) or a schedule
// file's param gives it: a boolean reads true/false/yes/no/t/f/y/n/1/0 (any
// case), a number must fill the text and fit the type. False: not a value of
// the field's type (*v unspecified).
bool ParseFieldValue(const std::string& text, bool* v);
bool ParseFieldValue(const std::string& text, double* v);
bool ParseFieldValue(const std::string& text, std::string* v);
bool ParseFieldValue(const std::string& text, int* v);
bool ParseFieldValue(const std::string& text, int64_t* v);
bool ParseFieldValue(const std::string& text, uint64_t* v);

// The kParam fields of `c` by name, as a schedule file's params hold them
// (numbers in decimal, booleans 1 or 0).
std::map<std::string, std::string> ConfigParams(const StressConfig& c);

// Sets every kParam field of *c from `params` (other keys are ignored).
// False with *error ("param <name>: missing or not a ...") if one is absent
// or does not parse as its field's type; *c is then partly set.
bool ConfigFromParams(const std::map<std::string, std::string>& params, StressConfig* c,
                      std::string* error);

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
  const int64_t ops = c.sched_ops > c.sched_program_ops ? c.sched_ops : c.sched_program_ops;
  return kBase + kPerOp * (c.threads + (c.irq_thread ? 1 : 0)) * ops;
}
// --max_steps, or DefaultMaxSteps when it is 0.
inline int64_t MaxSteps(const StressConfig& c) {
  return c.max_steps > 0 ? c.max_steps : DefaultMaxSteps(c);
}

// True when built with ThreadSanitizer.
bool BuiltWithTsan();

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_CONFIG_H_
