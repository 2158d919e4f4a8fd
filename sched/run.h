// sched/run.h: running a scenario under the controlled scheduler.
//
//   sched::Options o;
//   o.scenario = "bitmap_alloc";            // identity, for the schedule file
//   o.strategy = sched::StrategyKind::kPct; o.seed = 7; o.max_executions = 1000;
//   sched::RunResult r = sched::Run(o, setup);   // setup: see sched.h
//   if (r.failed) ... r.schedule_path, r.report ...
//
// Run executes `setup` and the threads it spawns again and again, one
// execution per schedule the strategy picks, until an execution fails or the
// strategy is done. Every execution is a pure function of (scenario,
// strategy, seed or schedule): the same inputs give the same trace hash, bit
// for bit.
//
// What it prints (to Options::out, and into RunResult::output):
//   flowcheck: trace hash <16 hex digits>            every execution (verbosity 1)
// and on a failure, in this order (the schedule file is written first):
//   flowcheck: schedule written: <absolute path>
//   flowcheck: rerun: tools/reproduce.sh <absolute path>
//   flowcheck: FAIL [<kind>] <one line>
//   <the report: what failed, every thread's state and held locks>
//   flowcheck: trace hash <hex>
// and last the strategy's summary line (e.g. "flowcheck: dfs: explored 20
// schedules, space exhausted"; pct prints its probability bound).
//
// Failure kinds: "deadlock" (nothing can run and some thread waits: the
// report names the wait-for cycle), "step-bound" (an execution took more than
// max_steps decisions: a livelock or starvation), "check" (sched::Fail /
// SCHED_CHECK), "lockcheck" (a lockcheck report, e.g. lock-order-inversion),
// "exception" (a logical thread let an exception escape), "nondeterminism"
// (the execution did not follow its schedule on the code that recorded it:
// replay on the same executable, or a dfs prefix).
//
// Replay outcomes (strategy "replay"; the schedule's `code` against this
// executable's):
//   the execution follows the schedule and fails as recorded:
//     "flowcheck: replay: reproduced [<kind>], trace hash <hex> as recorded"
//   it differs from the schedule, on the same code: FAIL [nondeterminism];
//   it differs, on changed code (or a version 1 file, which records none),
//   and passes: not a failure, and
//     "flowcheck: replay: does not reproduce: passed; the schedule diverged at decision N (...)"
//   it differs, on changed code, and fails otherwise: that failure, after
//     "flowcheck: replay: the code changed and the schedule diverged at decision N (...)".
//
// Contract: one Run at a time per process. For its duration Run owns
// lockcheck's process-wide state: it installs lockcheck's schedule hook (and
// removes it at the end) and a report handler (restoring the previous one
// at the end), and calls
// lockcheck::ResetForTesting() before every execution, so that what lockcheck
// learned in one execution cannot change the next (a lock-order inversion
// must show within one execution to be reported). No other thread may use
// lockcheck locks meanwhile.
#ifndef FLOWCHECK_SCHED_RUN_H_
#define FLOWCHECK_SCHED_RUN_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sched/schedule_file.h"
#include "sched/trace_out.h"

namespace sched {

// How the schedules of a run are chosen (strategy.h has the strategies):
//   kRandom, kPct, kDfs   explore;
//   kReplay               follow Options::replay (a schedule file);
//   kGuided               the minimizer's lenient replay of replay.decisions;
//   kBytes                take the decisions from Options::bytes (a fuzz input).
enum class StrategyKind { kRandom, kPct, kDfs, kReplay, kGuided, kBytes };
// How logical threads are switched (switcher.h).
enum class Backend { kFiber, kBaton };
// What a lockcheck report does to an execution:
//   kEnd     it fails, at the reporting thread's next decision point;
//   kDefer   it goes on (so a deadlock can still show) and fails at its end
//            with the first report, unless it failed otherwise first;
//   kRecord  reports never fail it; they are added to the report of any
//            other failure (to let a search run into the deadlock a
//            lock-order report predicts).
enum class LockcheckReports { kEnd, kDefer, kRecord };

// Each value's name: what flags take, schedule files record and file names
// carry ("random", "pct", "dfs", "replay", "guided", "bytes"; "fiber",
// "baton"; "end", "defer", "record").
const char* Name(StrategyKind s);
const char* Name(Backend b);
const char* Name(LockcheckReports r);
// The value named `name`; false if none is (*out unchanged).
bool Parse(const std::string& name, StrategyKind* out);
bool Parse(const std::string& name, Backend* out);
bool Parse(const std::string& name, LockcheckReports* out);

struct Options {
  // Identity of the scenario, written into schedule files.
  std::string scenario = "unnamed";
  std::map<std::string, std::string> params;
  std::string target;  // Bazel target that can replay it, if any

  StrategyKind strategy = StrategyKind::kRandom;
  std::vector<uint8_t> bytes;
  uint64_t seed = 1;
  int pct_depth = 3;
  int max_preemptions = 2;         // dfs; -1: unbounded
  uint64_t max_executions = 1000;  // random, pct; dfs: 0 = until exhausted
  // The scenario's programs 0..num_programs-1; the setup builds
  // sched::ProgramIndex(). dfs explores every schedule of each in turn;
  // random and pct run program execution % num_programs. A failing schedule
  // records its program (strategy-param program=P) for the replay.
  uint64_t num_programs = 1;
  // Exploration split over Bazel's test sharding: this run is shard
  // shard_index of shard_count. shard_count 0: from the environment
  // (TEST_TOTAL_SHARDS, TEST_SHARD_INDEX; the run touches
  // TEST_SHARD_STATUS_FILE), else 1. dfs divides its schedules exactly
  // (dfs_strategy.cc); random and pct give each shard its own seed.
  uint64_t shard_index = 0;
  uint64_t shard_count = 0;
  Schedule replay;
  std::string replay_path;  // for messages: where `replay` came from
  // Which code runs: recorded in schedule files, compared on replay. 0: this
  // executable's hash (ExecutableHash()); tests set it to pose as changed code.
  uint64_t code_hash = 0;

  // Parameters that differ per execution (inputs the scenario draws from
  // (seed, execution), e.g. each thread's op list): merged over `params` in
  // the schedule file of a failing execution, so that a replay, given them,
  // rebuilds that execution. Empty: none.
  std::function<std::map<std::string, std::string>(uint64_t execution)> execution_params;
  // random, pct, dfs: start no execution after this many seconds of wall
  // time (0: no limit). Each execution stays a pure function of its inputs;
  // only how many run depends on the clock.
  double max_seconds = 0;

  // An execution with more decisions than this fails as "step-bound".
  uint64_t max_steps = 10000;
  LockcheckReports lockcheck_reports = LockcheckReports::kEnd;
  Backend backend = Backend::kFiber;
  size_t stack_size = 0;  // fiber stacks; 0: default

  // Where a failing schedule goes: a file path, or a directory (existing, or
  // ending in '/') for <scenario>-<strategy>-seed<S>-exec<N>.schedule.
  // Empty: $TEST_UNDECLARED_OUTPUTS_DIR under `bazel test`, else the
  // directory the user ran the command in.
  std::string schedule_out;
  // False: a failure writes no schedule file and prints no "schedule
  // written"/"rerun" lines (RunResult::schedule_path stays empty): for the
  // minimizer's candidate runs (RunResult::decisions has the list; it writes
  // its own result) and for a caller whose own input already is the complete
  // reproduction, a fuzz target's crash file (fuzz/sched_fuzz.cc).
  bool write_schedule = true;
  // When set, a failure it rejects (by kind and FAIL line text) counts as a
  // passing execution and the strategy goes on: the minimizer searches for
  // one failure marker only.
  std::function<bool(const std::string& kind, const std::string& line)> wanted_failure;
  // Non-empty: the trace of the failing execution (or of the last one, if
  // none failed) is written there as JSON (trace_out.h), atomically.
  std::string trace_out;

  // Fill RunResult::bytes: the last execution's decisions as the bytes
  // strategy's input (what turns a found schedule into a fuzz input).
  bool record_bytes = false;

  // 0: only failures and the summary; 1: also every execution's trace hash.
  int verbosity = 1;
  FILE* out = stderr;  // nullptr: print nothing (RunResult::output still gets it)
};

struct RunResult {
  bool failed = false;
  std::string failure_kind;  // see above; "" when nothing failed
  std::string failure_line;  // the FAIL line's text after the kind
  std::string report;
  std::string schedule_path;   // written schedule ("" if none)
  std::string schedule_error;  // why it could not be written ("" if it was)
  bool usage_error = false;    // bad options or unusable replay schedule
  uint64_t executions = 0;
  uint64_t last_trace_hash = 0;
  uint64_t last_steps = 0;  // decisions in the last execution
  bool dfs_exhausted = false;  // dfs ran every schedule within its bound
  std::vector<ScheduledDecision> decisions;  // of the last execution
  // With Options::record_bytes: bytes that make kBytes take the last
  // execution's decisions (ByteFor, strategy.h), one per decision.
  std::vector<uint8_t> bytes;
  Trace trace;              // what was written to trace_out (when set)
  std::string trace_path;   // the trace written ("" if none)
  std::string trace_error;  // why it could not be written ("" if it was)
  std::string output;  // everything printed
};

RunResult Run(const Options& options, const std::function<void()>& setup);

// "0123456789abcdef".
std::string TraceHashHex(uint64_t hash);

}  // namespace sched

#endif  // FLOWCHECK_SCHED_RUN_H_
