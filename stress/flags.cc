// stress/flags.cc: see flags.h. Defaults come from StressConfig, so the
// flags, the library and the rerun command cannot disagree.
#include "stress/flags.h"

#include <cstdint>
#include <string>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace {
const flowcheck::stress::StressConfig kDefaults;
}  // namespace

ABSL_FLAG(int, threads, kDefaults.threads, "op threads (each owns --qps_per_thread QPs)");
ABSL_FLAG(int64_t, ops_per_thread, kDefaults.ops_per_thread,
          "ops per op thread; 0 = no limit; -1 = 2000 without --seconds, else no limit");
ABSL_FLAG(double, seconds, kDefaults.seconds, "wall-clock limit in seconds (0 = none)");
ABSL_FLAG(int, contexts, kDefaults.contexts, "receive contexts (QP j on context j % contexts)");
ABSL_FLAG(int, qps_per_thread, kDefaults.qps_per_thread, "QPs each op thread owns");
ABSL_FLAG(uint64_t, seed, kDefaults.seed, "run seed; 0 = random (always printed)");
ABSL_FLAG(double, yield_probability, kDefaults.yield_probability,
          "probability of a yield or short spin at each lock schedule point");
ABSL_FLAG(double, watchdog_seconds, kDefaults.watchdog_seconds,
          "no progress for this long = a watchdog failure (report + abort)");
ABSL_FLAG(int, quiescent_every, kDefaults.quiescent_every,
          "op-thread ops between quiescent points (full checks at rest)");
ABSL_FLAG(int, workers, kDefaults.workers, "work queue worker threads");
ABSL_FLAG(bool, irq_thread, kDefaults.irq_thread,
          "run the emulated receive interrupt (hardirq bare reservations, RESYNC)");
ABSL_FLAG(int, bare_per_thread, kDefaults.bare_per_thread,
          "bare flow reservations an op thread may hold (squeezes the 32 flows)");
ABSL_FLAG(bool, flush_handoff, kDefaults.flush_handoff,
          "after a flush, wake the new head of flow_queue (the kernel does not; see "
          "docs/stress.md)");
ABSL_FLAG(std::string, sched, kDefaults.sched,
          "off (the OS schedules the threads) or random, pct, dfs: controlled executions "
          "(docs/stress.md, \"Controlled runs\")");
ABSL_FLAG(int, sched_depth, kDefaults.sched_depth, "--sched=pct: the bug depth d");
ABSL_FLAG(int, max_preemptions, kDefaults.max_preemptions,
          "--sched=dfs: preemption bound (-1: unbounded)");
ABSL_FLAG(int64_t, sched_executions, kDefaults.sched_executions,
          "--sched: cap on executions (0: until --seconds, or 1000 without it; dfs: until "
          "exhausted)");
ABSL_FLAG(int, sched_ops, kDefaults.sched_ops, "--sched: ops per thread per execution");
ABSL_FLAG(int64_t, sched_programs, kDefaults.sched_programs,
          "--sched=dfs: explore every schedule of programs 0..N-1 in turn (program p: the op "
          "lists random and pct draw for execution p); 1: execution 0's lists only");
ABSL_FLAG(int, sched_free_flows, kDefaults.sched_free_flows,
          "--sched: flows left free at the start of an execution (the rest held as bare "
          "flows)");
ABSL_FLAG(int64_t, max_steps, kDefaults.max_steps,
          "--sched: an execution with more decisions fails [step-bound] (0: 10000 + 200 per op "
          "of the program, ops = (--threads + rcv-irq) x --sched_ops)");
ABSL_FLAG(std::string, schedule_out, kDefaults.schedule_out,
          "--sched: where a failing schedule is written (file or directory)");
ABSL_FLAG(std::string, replay, "",
          "replay a schedule file written by a --sched run (no other flag but --json_out)");
ABSL_FLAG(std::string, json_out, kDefaults.json_out, "write a JSON summary here");
ABSL_FLAG(double, progress_every, 1.0, "seconds between progress lines (0 = none)");

namespace flowcheck {
namespace stress {
namespace {

bool IsUsageFlag(absl::string_view name) {
  return name == "help" || name == "helpfull" || name == "helpshort" ||
         name == "helppackage" || name == "helpon" || name == "helpmatch" ||
         name == "version" || name == "only_check_args";
}

// One of the flags defined in this file (not another library's, nor
// Abseil's --flagfile and friends).
absl::CommandLineFlag* OurFlag(absl::string_view name) {
  absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  if (flag == nullptr || flag->IsRetired() ||
      !absl::EndsWith(flag->Filename(), "stress/flags.cc")) {
    return nullptr;
  }
  return flag;
}

}  // namespace

std::string ParseFlags(int argc, char** argv) {
  bool usage = false;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--" || !absl::ConsumePrefix(&arg, "-") || arg.empty()) {
      return absl::StrCat("unexpected argument '", argv[i], "' (only --flag=value arguments)");
    }
    absl::ConsumePrefix(&arg, "-");
    const size_t eq = arg.find('=');
    const absl::string_view name = arg.substr(0, eq);
    const bool has_value = eq != absl::string_view::npos;
    std::string value(has_value ? arg.substr(eq + 1) : absl::string_view());
    if (IsUsageFlag(name)) {
      usage = true;
      continue;
    }
    absl::CommandLineFlag* flag = OurFlag(name);
    if (flag == nullptr && absl::StartsWith(name, "no") && !has_value) {
      flag = OurFlag(name.substr(2));
      if (flag != nullptr && !flag->IsOfType<bool>()) flag = nullptr;
      if (flag != nullptr) value = "false";
    } else if (flag != nullptr && !has_value) {
      if (flag->IsOfType<bool>()) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return absl::StrCat("missing value for --", name);
      }
    }
    if (flag == nullptr) return absl::StrCat("unknown flag '", argv[i], "' (see --helpfull)");
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::StrCat("bad value for --", flag->Name(), ": ", error);
    }
  }
  if (usage) absl::ParseCommandLine(argc, argv);  // prints the usage and exits
  return "";
}

std::string ReplayFlag() { return absl::GetFlag(FLAGS_replay); }

StressConfig ConfigFromFlags() {
  StressConfig c;
  c.threads = absl::GetFlag(FLAGS_threads);
  c.ops_per_thread = absl::GetFlag(FLAGS_ops_per_thread);
  c.seconds = absl::GetFlag(FLAGS_seconds);
  c.contexts = absl::GetFlag(FLAGS_contexts);
  c.qps_per_thread = absl::GetFlag(FLAGS_qps_per_thread);
  c.seed = absl::GetFlag(FLAGS_seed);
  c.yield_probability = absl::GetFlag(FLAGS_yield_probability);
  c.watchdog_seconds = absl::GetFlag(FLAGS_watchdog_seconds);
  c.quiescent_every = absl::GetFlag(FLAGS_quiescent_every);
  c.workers = absl::GetFlag(FLAGS_workers);
  c.irq_thread = absl::GetFlag(FLAGS_irq_thread);
  c.bare_per_thread = absl::GetFlag(FLAGS_bare_per_thread);
  c.flush_handoff = absl::GetFlag(FLAGS_flush_handoff);
  c.sched = absl::GetFlag(FLAGS_sched);
  c.sched_depth = absl::GetFlag(FLAGS_sched_depth);
  c.max_preemptions = absl::GetFlag(FLAGS_max_preemptions);
  c.sched_executions = absl::GetFlag(FLAGS_sched_executions);
  c.sched_ops = absl::GetFlag(FLAGS_sched_ops);
  c.sched_programs = absl::GetFlag(FLAGS_sched_programs);
  c.sched_free_flows = absl::GetFlag(FLAGS_sched_free_flows);
  c.max_steps = absl::GetFlag(FLAGS_max_steps);
  c.schedule_out = absl::GetFlag(FLAGS_schedule_out);
  c.json_out = absl::GetFlag(FLAGS_json_out);
  c.progress_every = absl::GetFlag(FLAGS_progress_every);
  return c;
}

}  // namespace stress
}  // namespace flowcheck
