// sched/run.cc: sched::Run: the loop over executions, the failure path
// (schedule file first, then the report) and replay's divergence check.
#include "sched/run.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>

#include "common/atomic_file.h"
#include "lockcheck/report.h"
#include "lockcheck/schedule.h"
#include "sched/runtime.h"
#include "sched/sanitizers.h"
#include "sched/strategy.h"
#include "sched/switcher.h"
#include "sched/trace_out.h"

namespace sched {
namespace {

using internal::g_runtime;

void Hook(lockcheck::SchedulePoint point, const void* lock, void* arg) {
  auto* runtime = static_cast<internal::Runtime*>(arg);
  if (point == lockcheck::SchedulePoint::kNamed) {
    // lockcheck::SchedulePointNamed (core's bit operations, the work queue,
    // the kernel's windows): a decision point labelled like sched::Point.
    runtime->Point(internal::PointKind::kPoint, static_cast<const char*>(lock));
  } else {
    runtime->OnLockPoint(point, lock);
  }
}

void ReportHandler(const lockcheck::Report& report) {
  if (internal::Runtime* rt = g_runtime.load(std::memory_order_relaxed)) {
    rt->OnLockcheckReport(report);
  }
}

class Printer {
 public:
  Printer(FILE* out, std::string* sink) : out_(out), sink_(sink) {}
  void Line(const std::string& text) {
    std::string s = text;
    if (s.empty() || s.back() != '\n') s += '\n';
    *sink_ += s;
    if (out_ != nullptr) {
      std::fputs(s.c_str(), out_);
      std::fflush(out_);
    }
  }

 private:
  FILE* out_;
  std::string* sink_;
};

std::string Absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string SchedulePath(const Options& o, uint64_t execution) {
  const std::string name = o.scenario + "-" + Name(o.strategy) + "-seed" + std::to_string(o.seed) +
                           "-exec" + std::to_string(execution) + ".schedule";
  std::string dir;
  if (!o.schedule_out.empty()) {
    std::string p = flowcheck::ResolveUserPath(o.schedule_out);
    if (p.back() != '/' && !IsDirectory(p)) return Absolute(p);
    dir = p;
    mkdir(dir.c_str(), 0777);  // one level, for "out/"; a failure shows at the write
  } else if (const char* t = getenv("TEST_UNDECLARED_OUTPUTS_DIR"); t != nullptr && *t != '\0') {
    dir = t;
  } else {
    dir = flowcheck::ResolveUserPath(".");
  }
  char real[PATH_MAX];
  if (realpath(dir.c_str(), real) != nullptr) dir = real;
  if (dir.back() != '/') dir += '/';
  return Absolute(dir + name);
}

// Resolves Options::shard_count 0 from Bazel's test-sharding environment,
// and touches TEST_SHARD_STATUS_FILE (the protocol: the test supports it).
std::string ResolveShards(Options* o) {
  if (o->shard_count == 0) {
    const char* total = getenv("TEST_TOTAL_SHARDS");
    const char* index = getenv("TEST_SHARD_INDEX");
    o->shard_count = 1;
    o->shard_index = 0;
    if (total != nullptr && *total != '\0') {
      o->shard_count = std::strtoull(total, nullptr, 10);
      o->shard_index = index != nullptr ? std::strtoull(index, nullptr, 10) : 0;
      if (const char* status = getenv("TEST_SHARD_STATUS_FILE"); status != nullptr && *status) {
        if (FILE* f = std::fopen(status, "a")) std::fclose(f);
      }
    }
  }
  if (o->shard_count == 0 || o->shard_index >= o->shard_count) {
    return "shard " + std::to_string(o->shard_index) + " of " + std::to_string(o->shard_count) +
           " does not exist";
  }
  if (o->num_programs == 0) return "num_programs must be >= 1";
  return "";
}

// Each shard of a random or pct run draws from its own seed.
uint64_t ShardSeed(const Options& o) {
  return o.shard_index == 0 ? o.seed : internal::ExecutionSeed(o.seed, ~o.shard_index);
}

std::unique_ptr<Strategy> MakeStrategy(const Options& o, std::string* error) {
  switch (o.strategy) {
    case StrategyKind::kRandom:
      return MakeRandomStrategy(ShardSeed(o), o.max_executions);
    case StrategyKind::kPct:
      if (o.pct_depth < 1) *error = "pct depth must be >= 1";
      return MakePctStrategy(ShardSeed(o), o.pct_depth, o.max_executions);
    case StrategyKind::kDfs: {
      DfsOptions d;
      d.max_preemptions = o.max_preemptions;
      d.max_executions = o.max_executions;
      d.num_programs = o.num_programs;
      d.shard_index = o.shard_index;
      d.shard_count = o.shard_count;
      return MakeDfsStrategy(d);
    }
    case StrategyKind::kReplay:
      return MakeReplayStrategy(o.replay.decisions);
    case StrategyKind::kGuided:
      return MakeGuidedStrategy(o.replay.decisions);
    case StrategyKind::kBytes:
      return MakeBytesStrategy(o.bytes);
  }
  *error = "no such strategy";
  return nullptr;
}

// The program a replay rebuilds: the one its schedule recorded.
uint64_t ReplayProgram(const Schedule& s) {
  auto it = s.strategy_params.find("program");
  return it == s.strategy_params.end() ? 0 : std::strtoull(it->second.c_str(), nullptr, 10);
}

// Compares a replayed execution with its schedule (run.h, "Replay
// outcomes"). Returns false if it followed the schedule and ended as
// recorded; otherwise true, with *e rewritten as the outcome says.
bool JudgeReplay(const Options& o, const Strategy& strategy, uint64_t code_hash,
                 internal::Outcome* e, Printer* print) {
  const Schedule& s = o.replay;
  const auto outcome = [](bool failed, const std::string& kind) {
    return "[" + (failed ? kind : std::string("passed")) + "]";
  };
  uint64_t at = 0;
  std::string how, where;
  if (strategy.Divergence(&at, &how)) {
    where = "the schedule diverged at decision " + std::to_string(at) + " (" + how + ")";
  } else if (e->decisions.size() != s.decisions.size()) {
    where = "the schedule diverged at decision " +
            std::to_string(std::min(e->decisions.size(), s.decisions.size())) +
            " (the execution ended after " + std::to_string(e->decisions.size()) +
            " decisions; the schedule has " + std::to_string(s.decisions.size()) + ")";
  } else if (e->trace_hash != s.trace_hash || e->kind != s.failure) {
    where = "the schedule's " + std::to_string(s.decisions.size()) +
            " decisions were all taken, but trace hash " + TraceHashHex(e->trace_hash) + " " +
            outcome(e->failed, e->kind) + ", the schedule recorded " + TraceHashHex(s.trace_hash) +
            " [" + s.failure + "]";
  } else {
    return false;
  }
  if (s.code != 0 && s.code == code_hash) {
    e->report =
        "The replayed execution did not follow its schedule on the very code that recorded it: "
        "something in the scenario is not a function of the schedule.\nIts own outcome: " +
        (e->failed ? "[" + e->kind + "] " + e->line : std::string("passed")) + "\n" + e->report;
    e->failed = true;
    e->kind = "nondeterminism";
    e->line = "uncontrolled nondeterminism: " + where;
  } else if (!e->failed) {
    print->Line("flowcheck: replay: does not reproduce: passed; " + where +
                (s.code == 0 ? " [a version 1 schedule records no code to compare]"
                             : " [the code changed since it was recorded]"));
  } else {
    print->Line("flowcheck: replay: the code changed since the schedule was recorded and " + where +
                "; the execution fails otherwise:");
  }
  return true;
}

}  // namespace

namespace {

constexpr const char* kStrategyNames[] = {"random", "pct", "dfs", "replay", "guided", "bytes"};
constexpr const char* kBackendNames[] = {"fiber", "baton"};
constexpr const char* kReportModeNames[] = {"end", "defer", "record"};

template <typename E, size_t N>
bool ParseName(const char* const (&names)[N], const std::string& name, E* out) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) {
      *out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

}  // namespace

const char* Name(StrategyKind s) { return kStrategyNames[static_cast<int>(s)]; }
const char* Name(Backend b) { return kBackendNames[static_cast<int>(b)]; }
const char* Name(LockcheckReports r) { return kReportModeNames[static_cast<int>(r)]; }
bool Parse(const std::string& name, StrategyKind* out) { return ParseName(kStrategyNames, name, out); }
bool Parse(const std::string& name, Backend* out) { return ParseName(kBackendNames, name, out); }
bool Parse(const std::string& name, LockcheckReports* out) {
  return ParseName(kReportModeNames, name, out);
}


std::string TraceHashHex(uint64_t hash) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, hash);
  return buf;
}

RunResult Run(const Options& options, const std::function<void()>& setup) {
  RunResult result;
  Printer print(options.out, &result.output);
  Options o = options;
  const bool replay = o.strategy == StrategyKind::kReplay;
  std::string error;
  if (replay) {  // the recorded run options win
    o.max_steps = o.replay.max_steps;
    if (!Parse(o.replay.lockcheck_reports, &o.lockcheck_reports)) {
      error = "unknown lockcheck_reports mode '" + o.replay.lockcheck_reports +
              "' (end, defer or record)";
    }
  }
  if (error.empty()) error = ResolveShards(&o);
  std::unique_ptr<Strategy> strategy = error.empty() ? MakeStrategy(o, &error) : nullptr;
  if (error.empty() && replay && (o.replay.scenario != o.scenario || o.replay.params != o.params)) {
    error = "the schedule is for scenario '" + o.replay.scenario +
            "' with other parameters, not '" + o.scenario + "'";
  }
  if (error.empty() && g_runtime.load(std::memory_order_relaxed) != nullptr) {
    error = "sched::Run called during another sched::Run";
  }
  if (!error.empty()) {
    result.usage_error = true;
    print.Line("flowcheck: sched: " + error);
    return result;
  }

  // Only a replay and a written schedule need the executable's hash (the
  // first call reads the whole binary: a fuzz target's run writes none).
  const uint64_t code_hash =
      o.code_hash != 0 ? o.code_hash : replay || o.write_schedule ? ExecutableHash() : 0;
  std::unique_ptr<internal::Switcher> switcher = o.backend == Backend::kBaton
                                                     ? internal::MakeBatonSwitcher()
                                                     : internal::MakeFiberSwitcher(o.stack_size);
  internal::Runtime runtime(o, strategy.get(), switcher.get());
  g_runtime.store(&runtime, std::memory_order_relaxed);
  lockcheck::SetScheduleHook(&Hook, &runtime);
  lockcheck::ReportHandler previous_handler = lockcheck::SetReportHandler(&ReportHandler);

  Trace trace;  // of the last execution, when recorded
  const auto start = std::chrono::steady_clock::now();
  const auto out_of_time = [&] {
    return !replay && o.max_seconds > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >=
               o.max_seconds;
  };
  bool replay_differed = false;
  for (uint64_t i = 0; !out_of_time() && strategy->BeginExecution(i); ++i) {
    const uint64_t program =
        replay ? ReplayProgram(o.replay) : strategy->Program(i) % o.num_programs;
    runtime.set_program(program);
    internal::Outcome e = runtime.RunExecution(setup);
    strategy->EndExecution(e.steps, e.threads);
    if (e.abandoned || !strategy->Counted()) continue;  // not one of this run's schedules
    ++result.executions;
    result.last_trace_hash = e.trace_hash;
    result.last_steps = e.steps;
    result.decisions = e.decisions;
    result.bytes = std::move(e.bytes);
    trace = std::move(e.trace);
    if (e.failed && o.wanted_failure && !o.wanted_failure(e.kind, e.line)) e.failed = false;
    if (replay) replay_differed = JudgeReplay(o, *strategy, code_hash, &e, &print);
    if (e.failed) {
      result.failed = true;
      result.failure_kind = e.kind;
      result.failure_line = e.line;
      result.report = e.report;
      if (replay) {
        print.Line("flowcheck: replayed schedule: " + o.replay_path);
        print.Line("flowcheck: rerun: tools/reproduce.sh " + o.replay_path);
      } else if (o.write_schedule) {
        Schedule s;
        s.scenario = o.scenario;
        s.params = o.params;
        if (o.execution_params) {
          for (const auto& [k, v] : o.execution_params(i)) s.params[k] = v;
        }
        s.target = o.target;
        s.sanitizer = internal::BuildSanitizer();
        s.strategy = Name(o.strategy);
        s.strategy_params = strategy->Params();
        if (o.num_programs > 1) s.strategy_params["program"] = std::to_string(program);
        s.seed = ShardSeed(o);  // a shard's own seed: the one its rerun needs
        s.execution = i;
        s.backend = Name(o.backend);
        s.max_steps = o.max_steps;
        s.lockcheck_reports = Name(o.lockcheck_reports);
        s.failure = e.kind;
        s.trace_hash = e.trace_hash;
        s.code = code_hash;
        s.decisions = e.decisions;
        const std::string path = SchedulePath(o, i);
        if ((result.schedule_error = WriteScheduleFile(path, s)).empty()) {
          result.schedule_path = path;
          print.Line("flowcheck: schedule written: " + path);
          print.Line("flowcheck: rerun: tools/reproduce.sh " + path);
        } else {
          print.Line("flowcheck: sched: " + result.schedule_error);
        }
      }
      print.Line("flowcheck: FAIL [" + e.kind + "] " + e.line);
      print.Line(e.report);
      print.Line("flowcheck: trace hash " + TraceHashHex(e.trace_hash));
      break;
    }
    if (replay && !replay_differed) {
      print.Line("flowcheck: replay: the execution followed the schedule and passed, as recorded");
    }
    if (o.verbosity >= 1) print.Line("flowcheck: trace hash " + TraceHashHex(e.trace_hash));
  }
  if (replay && result.failed && !replay_differed) {
    print.Line("flowcheck: replay: reproduced [" + result.failure_kind + "], trace hash " +
               TraceHashHex(result.last_trace_hash) + " as recorded");
  }
  if (!result.failed && out_of_time()) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", o.max_seconds);
    print.Line(std::string("flowcheck: sched: time limit reached (") + limit +
               " s): no further execution started");
  }
  print.Line(strategy->Summary(result.executions, result.failed));
  result.dfs_exhausted = strategy->exhausted();
  if (!o.trace_out.empty() && result.executions > 0) {
    const std::string path = Absolute(flowcheck::ResolveUserPath(o.trace_out));
    result.trace_error = flowcheck::WriteFileAtomically(
        path, TraceJson(trace, o.scenario, o.params, result.last_trace_hash));
    result.trace = std::move(trace);
    if (result.trace_error.empty()) {
      result.trace_path = path;
      print.Line("flowcheck: trace written: " + path);
    } else {
      print.Line("flowcheck: sched: " + result.trace_error);
    }
  }

  lockcheck::SetReportHandler(previous_handler);
  lockcheck::SetScheduleHook(nullptr, nullptr);
  g_runtime.store(nullptr, std::memory_order_relaxed);
  {
    // The fibers' last call (Finish) read the switcher's vtable; they ended
    // long ago, but TSan knows no edge from them to this free.
    internal::IgnoreScope ignore;
    switcher.reset();
  }
  return result;
}

}  // namespace sched
