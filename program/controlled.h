// program/controlled.h: the engine's programs under the controlled scheduler:
// a search (stress_main --sched=random|pct|dfs), a replay (--replay=FILE),
// and one given program steered by bytes (sched_fuzz, RunProgram).
//
// A controlled run is many short executions (sched/run.h), each a pure
// function of (flags, execution index, schedule):
//   * a fresh model (contexts, QPs, work queue), with all but
//     --sched_free_flows flows of each context held as bare flows by the op
//     threads, so that a few ops contend for the rest;
//   * the op threads "stress-<i>", each running its op list (op_list.h):
//     --sched_ops ops drawn from (seed, execution), or the `ops.<thread>`
//     params of a schedule file;
//   * "rcv-irq" with its own list, as an interrupt of stress-0: it runs only
//     where stress-0 has IRQs on, inside a hardirq, stress-0 frozen meanwhile;
//   * --workers logical workers "kworker/stress:<i>" (no OS worker threads):
//     each blocks until the work queue has an item or the listed threads
//     ended, then runs one;
//   * with one context, the oracle following the execution
//     (oracle_follow.h): each observed call applied to core's reference
//     model and compared, while the order of the effects is known;
//   * at the end, on the scheduler's controller (sched::AtEnd): the
//     oracle's last comparison, the quiescent point (work drained,
//     CheckAtRest, no lost wakeup, the threads' beliefs), the drain and the
//     final checks, and the QPs' teardown.
// Every check that fails calls program::Fail, which (SetControlledFailures)
// fails the execution through the scheduler; lockcheck reports are routed
// to it by sched::Run. The schedule file is then written first and the
// scheduler prints its lines (schedule written, rerun, FAIL, report, trace
// hash, the strategy's summary); then the stress FAIL line
// "flowcheck: FAIL [invariant <ID>] ..." (for a check; a lockcheck report,
// deadlock or step bound keeps sched's FAIL line). No sleeps, no watchdog:
// the step bound (--max_steps, MaxSteps in config.h) stands for it.
//
// The scenario is registered with sched's CLI machinery as "stress"
// (target //stress:stress_main); its params carry everything needed to
// rebuild an execution: seed, execution, threads, contexts, qps_per_thread,
// workers, irq_thread, bare_per_thread, flush_handoff, strict, sched_ops,
// sched_free_flows, and `ops.<thread>` (one list per thread; a missing one
// is empty).
#ifndef FLOWCHECK_PROGRAM_CONTROLLED_H_
#define FLOWCHECK_PROGRAM_CONTROLLED_H_

#include <cstdint>
#include <string>
#include <vector>

#include "program/config.h"
#include "program/driver.h"
#include "program/op_list.h"

namespace flowcheck {
namespace program {

struct ControlledResult {
  // 0 no failure; 1 a failure found or reproduced, or a replay diverged;
  // 2 an unusable schedule file; 3 the failing schedule could not be written.
  int status = 0;
  StressResult stats;          // over the passing executions
  uint64_t executions = 0;
  std::string marker, detail;  // the failure: "invariant no-lost-wakeup", ...
  std::string schedule_path;   // written (search) or replayed
  std::string trace_hash;      // of the last execution
  uint64_t decisions = 0;      // the last execution's
  std::string report;          // the scheduler's report of the failure (threads, locks)
  // With record_bytes: the last execution's decisions as the bytes
  // strategy's input (sched::ByteFor), so that RunProgram(its lists, bytes)
  // takes them again.
  std::vector<uint8_t> bytes;
  // The oracle (oracle_follow.h, one context only): its comparisons, the
  // executions it followed and those it followed throughout, how often it
  // took up the model's state again after a stop, and why it stopped in the
  // first execution it did not follow throughout.
  uint64_t oracle_comparisons = 0, oracle_executions = 0, oracle_followed = 0,
           oracle_resumed = 0;
  std::string oracle_first_stop;
};

// Runs `config` (Controlled(config)), or, with `replay_path` not empty,
// replays that schedule file (config is then taken from it, except json_out).
// Prints as described above (the scheduler's lines on stderr).
// `record_bytes`: fill ControlledResult::bytes.
ControlledResult RunControlled(const StressConfig& config, const std::string& replay_path,
                               bool record_bytes = false);

// A given program: `config` sets the scenario (threads, rcv-irq, workers,
// ...), `lists` holds one op list per participant (op threads, then
// rcv-irq). With `bytes`, one execution whose decisions are read from them
// (sched's bytes strategy: the fuzz target sched_fuzz, fuzz/sched_fuzz.cc);
// without, config.sched (random, pct, dfs) searches the program's
// schedules, and a failure's result carries its decisions as bytes. A
// failure writes its schedule file to config.schedule_out if set: a stress
// schedule, holding the program, that //stress:stress_main replays,
// minimizes and draws. `quiet`: print nothing (the result has the failure
// and the report). `search_seed`: the search strategy's seed (0: config.seed,
// which also seeds the model).
ControlledResult RunProgram(const StressConfig& config, const OpLists& lists,
                            const std::vector<uint8_t>* bytes, bool quiet,
                            uint64_t search_seed = 0);

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_CONTROLLED_H_
