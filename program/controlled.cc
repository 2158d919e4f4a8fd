// program/controlled.cc: see controlled.h.
#include "program/controlled.h"

#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/atomic_file.h"
#include "common/strings.h"
#include "core/model_view.h"
#include "core/qp.h"
#include "core/tid_rdma.h"
#include "program/failure.h"
#include "program/judge.h"
#include "program/leader.h"
#include "program/op_check.h"
#include "program/op_list.h"
#include "program/ops.h"
#include "program/oracle_follow.h"
#include "program/program_space.h"
#include "program/run_state.h"
#include "sched/cli.h"
#include "sched/run.h"
#include "sched/sched.h"
#include "sched/schedule_file.h"

namespace flowcheck {
namespace program {
namespace {

constexpr char kScenario[] = "stress";
constexpr char kTarget[] = "//stress:stress_main";
constexpr char kOpsPrefix[] = "ops.";

using Params = std::map<std::string, std::string>;
using Lists = OpLists;

// The params that rebuild a run's executions (without ops.*): the config's
// kParam fields (program/config.h) and the execution.
Params ParamsOf(const StressConfig& c) {
  Params p = ConfigParams(c);
  p["execution"] = "0";
  return p;
}

// `c` from the scenario params (every kParam key present); execution too.
bool ConfigFromParams(const Params& p, StressConfig* c, uint64_t* execution, std::string* error) {
  int64_t exec = -1;
  auto it = p.find("execution");
  if (it == p.end() || !flowcheck::SimpleAtoi(it->second, &exec)) {
    *error = "param execution: missing or not a number";
    return false;
  }
  if (!program::ConfigFromParams(p, c, error)) return false;
  if (c->seed == 0 || exec < 0) {
    *error = "param seed must be > 0 and execution >= 0";
    return false;
  }
  *execution = static_cast<uint64_t>(exec);
  const std::string invalid = Validate(*c);
  if (!invalid.empty()) {
    *error = "params: " + invalid;
    return false;
  }
  return true;
}

int Participants(const StressConfig& c) { return c.threads + (c.irq_thread ? 1 : 0); }

std::string ParticipantName(const StressConfig& c, int i) {
  return i == c.threads ? "rcv-irq" : flowcheck::StrCat("stress-", i);
}

Lists GeneratedLists(const StressConfig& c, uint64_t execution) {
  Lists lists;
  for (int i = 0; i < Participants(c); ++i) {
    lists.push_back(GenerateOps(c, execution, i, i == c.threads));
  }
  return lists;
}

// The ops.* params; *given is false if there are none. Keys naming no
// thread of `c` are an error.
bool ListsFromParams(const StressConfig& c, const Params& p, Lists* lists, bool* given,
                     std::string* error) {
  lists->assign(Participants(c), {});
  *given = false;
  std::map<std::string, int> index;
  for (int i = 0; i < Participants(c); ++i) index[kOpsPrefix + ParticipantName(c, i)] = i;
  for (const auto& [k, v] : p) {
    if (k.compare(0, sizeof(kOpsPrefix) - 1, kOpsPrefix) != 0) continue;
    auto it = index.find(k);
    if (it == index.end()) {
      *error = "param " + k + ": no such thread";
      return false;
    }
    std::string why;
    if (!ParseOps(v, &(*lists)[it->second], &why)) {
      *error = "param " + k + ": " + why;
      return false;
    }
    *given = true;
  }
  return true;
}

Params ListParams(const StressConfig& c, uint64_t execution, const Lists& lists) {
  Params p{{"execution", flowcheck::StrCat(execution)}};
  for (int i = 0; i < Participants(c); ++i) {
    p[kOpsPrefix + ParticipantName(c, i)] = FormatOps(lists[i]);
  }
  return p;
}

// The QP a listed op holds the s_lock of from before its effect to after
// its observer (oracle_follow.h): a QP op's; nullptr for the others.
rvt_qp* SpanQp(const Participant& p, const ListedOp& op) {
  if (!IsQpOp(op.kind) || p.slots.empty()) return nullptr;
  return p.slots[op.a % p.slots.size()].qp;
}

void RunOp(Run* run, Participant* p, const ListedOp& op) {
  const ListedOpRow& row = kListedOpRows[op.kind];
  OracleFollower* oracle = row.order & kLooks ? nullptr : p->oracle;
  if (oracle != nullptr) oracle->BeginOp(p->index, &p->name, op, SpanQp(*p, op));
  RunListedOp(run, p, op);
  if (oracle != nullptr) oracle->EndOp(p->index);
  p->ops_done++;
  p->Count(kOps);
}

// A worker of the work queue as a logical thread: blocks until an item is
// pending or every listed thread ended (then it runs what is left and ends).
// `thread`: the worker's logical thread number for the oracle.
void WorkerMain(Run* run, int listed, int thread) {
  OracleFollower* oracle = run->oracle.get();
  for (;;) {
    sched::BlockUntil("kworker: the work queue is empty", [run, listed] {
      return run->wq.pending_count() > 0 ||
             run->listed_threads_done.load(std::memory_order_relaxed) == listed;
    });
    if (oracle != nullptr) oracle->BeginWork(thread);
    const bool ran = run->wq.RunOne();
    if (oracle != nullptr) {
      const std::string failure = oracle->EndWork(thread, ran);
      if (!failure.empty()) FailWith(Finding{kIdOracle, failure}, "a kworker");
    }
    if (ran) continue;
    if (run->listed_threads_done.load(std::memory_order_relaxed) == listed) return;
    sched::Yield();  // the pending item runs on another worker
  }
}

// The end of an execution, on the controller: every thread ended.
void EndOfExecution(Run* run) {
  QuiescentPoint(run);
  for (auto& p : run->participants) DrainRelease(p.get());
  do {
    for (auto& p : run->participants) DrainSlots(p.get());
  } while (DrainRound(run));
  FinalPoint(run);
  for (rvt_qp* qp : run->all_qps) {
    const int left = hfi1_model_teardown_qp(qp);
    if (left != 0) {
      Fail("invariant final",
           flowcheck::StrFormat("qp %u: %d reference(s) left after teardown (0 expected)",
                                qp->qp_num, left));
    }
  }
}

// Frees the QPs (a failed execution leaves them), then the run.
void DeleteRun(Run* run) {
  for (rvt_qp* qp : run->all_qps) hfi1_model_free_qp(qp);
  delete run;
}

// The timeline's state row (tools/reproduce.sh --timeline): per context its
// flow_mask and the QP numbers on flow_queue and rarr_queue, head first, as
// a JSON object. Read by the scheduler between two steps, when no logical
// thread runs: nothing can change under the read, so it takes no lock
// (which the analysis cannot know).
std::string StateJson(const Run& run) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  std::string out = "{";
  for (size_t i = 0; i < run.contexts.size(); ++i) {
    const ContextState& ctx = *run.contexts[i];
    const QpNodes nodes(ctx.qps);
    const auto queue = [&](const tid_queue& q) {
      std::string list;
      WalkQueue(q, nodes.size() + 1, [&](const list_head* n) {
        const int k = nodes.IndexOf(n);
        flowcheck::StrAppend(&list, list.empty() ? "" : ",",
                             k < 0 ? std::string("\"?\"") : flowcheck::StrCat(ctx.qps[k]->qp_num));
        return k >= 0;
      });
      return "[" + list + "]";
    };
    flowcheck::StrAppendFormat(&out,
                               "%s\"ctx%zu\":{\"flow_mask\":\"0x%08lx\",\"flow_queue\":%s,"
                               "\"rarr_queue\":%s}",
                               i == 0 ? "" : ",", i, ctx.rcd->flow_mask,
                               queue(ctx.rcd->flow_queue).c_str(),
                               queue(ctx.rcd->rarr_queue).c_str());
  }
  return out + "}";
}

struct Totals {
  uint64_t executions = 0, ops = 0, checks = 0, work_items = 0;
  uint64_t oracle_comparisons = 0, oracle_executions = 0, oracle_followed = 0,
           oracle_resumed = 0;
  std::string oracle_first_stop;
  std::map<std::string, uint64_t> counters;
  std::map<std::string, std::string> divergences;
};

// Program p of a dfs run: the space's (--sched_program_ops) or the lists
// random and pct draw for execution p.
Lists DfsProgram(const StressConfig& c, const ProgramSpace* space, uint64_t p) {
  return space != nullptr ? space->Program(p) : GeneratedLists(c, p);
}

// The setup of one execution (sched.h). Lists: `fixed` if given, else dfs's
// program (sched::ProgramIndex), else drawn from (seed, the execution's
// index: 0, 1, ... in the order setups run).
std::function<void()> MakeSetup(const StressConfig& c, std::shared_ptr<const Lists> fixed,
                                std::shared_ptr<const ProgramSpace> space,
                                std::shared_ptr<Totals> totals) {
  auto next_execution = std::make_shared<uint64_t>(0);
  return [c, fixed, space, totals, next_execution] {
    const uint64_t execution = (*next_execution)++;
    std::shared_ptr<Run> run(new Run, DeleteRun);
    run->config = c;
    run->controlled = true;
    run->yield = std::make_unique<YieldPolicy>(c.seed, 0.0);
    BuildModel(run.get());
    // All but sched_free_flows flows of each context held as bare flows.
    // The squeeze is the same in every execution of a run (the same calls on
    // a fresh model, on the controller, before any logical thread runs): the
    // first execution checks the whole context after each reservation, the
    // later ones judge each reservation's result and check the whole context
    // once, after the last (those checks were a fifth of a dfs execution of
    // program_space_reduction_test).
    const bool each_step = execution == 0;
    for (auto& ctx : run->contexts) {
      for (int k = 0; k < RXE_NUM_TID_FLOWS - c.sched_free_flows; ++k) {
        BareReserve(run->participants[k % c.threads].get(), ctx.get(), RXE_NUM_TID_FLOWS,
                    each_step);
      }
      if (!each_step) CheckContextLocked(run->participants[0].get(), ctx.get(), "setup's squeeze");
    }
    // One context: the oracle follows it (oracle_follow.h); the op threads,
    // rcv-irq and the workers are its logical threads.
    if (c.contexts == 1) {
      run->oracle = std::make_unique<OracleFollower>(*run->contexts[0], run->wq,
                                                     Participants(c) + c.workers, c.flush_handoff);
      for (auto& p : run->participants) p->oracle = run->oracle.get();
    }
    sched::SetStateProbe([run] { return StateJson(*run); });
    const Lists lists = fixed                ? *fixed
                        : c.sched == "dfs" ? DfsProgram(c, space.get(), sched::ProgramIndex())
                                           : GeneratedLists(c, execution);
    // A participant with an empty list is not spawned: it would only add a
    // start and an end to every schedule, in every order (stress-0 is, when
    // rcv-irq has ops: the interrupt needs its thread).
    const bool irq_runs = c.irq_thread && !lists[c.threads].empty();
    int listed = 0;
    sched::ThreadId first = -1;
    for (int i = 0; i < Participants(c); ++i) {
      Participant* p = run->participants[i].get();
      if (lists[i].empty() && !(i == 0 && irq_runs)) {
        p->doing.store("no ops (not spawned)", std::memory_order_relaxed);
        continue;
      }
      ++listed;
      sched::ThreadOptions options;
      if (p->irq) options.interrupts = first;
      const sched::ThreadId id = sched::Spawn(
          p->name,
          [run, p, ops = lists[i]] {
            for (const ListedOp& op : ops) RunOp(run.get(), p, op);
            p->doing.store("done", std::memory_order_relaxed);
            run->listed_threads_done.fetch_add(1, std::memory_order_relaxed);
          },
          options);
      if (i == 0) first = id;
    }
    for (int w = 0; w < c.workers; ++w) {
      sched::Spawn(
          flowcheck::StrCat("kworker/stress:", w),
          [run, listed, thread = Participants(c) + w] { WorkerMain(run.get(), listed, thread); });
    }
    sched::AtEnd([run, totals] {
      if (run->oracle != nullptr) {
        // The drain that follows is the final checks' (not followed).
        for (auto& p : run->participants) p->oracle = nullptr;
        const std::string failure = run->oracle->AtEnd();
        if (!failure.empty()) FailWith(Finding{kIdOracle, failure}, "the controller");
        totals->oracle_executions++;
        totals->oracle_comparisons += run->oracle->comparisons();
        totals->oracle_resumed += run->oracle->resumed();
        if (run->oracle->stopped().empty()) {
          totals->oracle_followed++;
        } else if (totals->oracle_first_stop.empty()) {
          totals->oracle_first_stop = run->oracle->stopped();
        }
      }
      EndOfExecution(run.get());
      totals->executions++;
      totals->ops += Sum(*run, kOps);
      totals->checks += Sum(*run, kChecks);
      totals->work_items += run->wq.executed();
      for (int k = 0; k < kNumCounters; ++k) {
        totals->counters[kCounterNames[k]] += Sum(*run, Counter(k));
      }
      for (const auto& d : run->leader_divergences) totals->divergences.emplace(d);
      for (const auto& p : run->participants) {
        for (const auto& d : p->divergences) totals->divergences.emplace(d);
      }
    });
  };
}

// Registered so that sched's tools find the scenario and its params.
const bool kRegistered = sched::RegisterScenario(sched::ScenarioSpec{
    kScenario,
    "the engine's execution (program/controlled.h); ops.<thread>=op,op,... per thread",
    [] {
      StressConfig d;
      d.seed = 1;
      return ParamsOf(d);
    }(),
    [](const sched::ScenarioParams& params, std::string* error) -> std::function<void()> {
      StressConfig c;
      uint64_t execution = 0;
      if (!ConfigFromParams(params, &c, &execution, error)) return nullptr;
      auto lists = std::make_shared<Lists>();
      bool given = false;
      if (!ListsFromParams(c, params, lists.get(), &given, error)) return nullptr;
      if (!given) *lists = GeneratedLists(c, execution);
      return MakeSetup(c, lists, nullptr, std::make_shared<Totals>());
    }});
const bool kOpsAccepted = sched::AcceptParamPrefix(kScenario, kOpsPrefix);

// Runs `o` over `c`'s executions (the lists `fixed`, else dfs's `space`,
// else drawn) and gathers the result; `input` is the config as given.
ControlledResult Execute(const sched::Options& o, const StressConfig& c, const StressConfig& input,
                         std::shared_ptr<Lists> fixed, std::shared_ptr<const ProgramSpace> space,
                         bool quiet) {
  ControlledResult result;
  auto totals = std::make_shared<Totals>();
  SetControlledFailures(true);
  const sched::RunResult r = sched::Run(o, MakeSetup(c, fixed, space, totals));
  SetControlledFailures(false);

  result.executions = r.executions;
  result.trace_hash = sched::TraceHashHex(r.last_trace_hash);
  result.schedule_path = o.replay_path.empty() ? r.schedule_path : o.replay_path;
  result.decisions = r.last_steps;
  result.bytes = r.bytes;
  result.report = r.report;
  StressResult& s = result.stats;
  s.config = input;
  s.ops = totals->ops;
  s.checks = totals->checks;
  s.quiescent_points = totals->executions;
  s.work_items = totals->work_items;
  s.counters = totals->counters;
  s.divergences = totals->divergences;
  result.oracle_comparisons = totals->oracle_comparisons;
  result.oracle_executions = totals->oracle_executions;
  result.oracle_followed = totals->oracle_followed;
  result.oracle_resumed = totals->oracle_resumed;
  result.oracle_first_stop = totals->oracle_first_stop;
  if (r.usage_error) {
    result.status = 2;
    result.detail = r.output;
    return result;
  }
  if (!r.failed) return result;
  result.status = r.schedule_error.empty() ? 1 : 3;
  std::string what, detail;
  if (LastControlledFailure(&what, &detail) && r.failure_kind == "check") {
    result.marker = what;
    result.detail = detail;
    if (!quiet) {
      std::fflush(stderr);
      std::fprintf(stderr, "flowcheck: FAIL [%s] %s\n", what.c_str(), detail.c_str());
    }
  } else {
    result.marker = r.failure_kind;
    result.detail = r.failure_line;
  }
  return result;
}

}  // namespace

ControlledResult RunControlled(const StressConfig& input, const std::string& replay_path,
                               bool record_bytes) {
  ControlledResult result;  // the early returns' (a bad file)
  StressConfig c = input;
  sched::Options o;
  o.scenario = kScenario;
  o.target = kTarget;
  o.schedule_out = c.schedule_out;
  std::shared_ptr<Lists> fixed;
  std::shared_ptr<const ProgramSpace> space;  // dfs with --sched_program_ops
  if (!replay_path.empty()) {
    o.replay_path = ResolveUserPath(replay_path);
    std::string error;
    if (!sched::LoadScheduleFile(o.replay_path, &o.replay, &error)) {
      std::fprintf(stderr, "flowcheck: %s\n", error.c_str());
      result.status = 2;
      return result;
    }
    const sched::ScenarioSpec* spec = sched::FindScenario(kScenario);
    sched::ScenarioParams resolved;
    uint64_t execution = 0;
    fixed = std::make_shared<Lists>();
    bool given = false;
    if (o.replay.scenario != kScenario) {
      error = "the schedule is for scenario '" + o.replay.scenario + "', not '" + kScenario +
              "' (replay it with " + o.replay.target + ")";
    } else if (sched::ResolveParams(*spec, o.replay.params, &resolved, &error) &&
               ConfigFromParams(resolved, &c, &execution, &error) &&
               ListsFromParams(c, resolved, fixed.get(), &given, &error)) {
      if (!given) *fixed = GeneratedLists(c, execution);
    }
    if (!error.empty()) {
      std::fprintf(stderr, "flowcheck: %s: %s\n", o.replay_path.c_str(), error.c_str());
      result.status = 2;
      return result;
    }
    c.sched = "replay";
    o.strategy = sched::StrategyKind::kReplay;
    o.params = o.replay.params;
    o.seed = o.replay.seed;
    if (!o.replay.backend.empty()) sched::Parse(o.replay.backend, &o.backend);  // checked on load
  } else {
    sched::Parse(c.sched, &o.strategy);  // random, pct or dfs (Validate)
    o.seed = c.seed;
    o.pct_depth = c.sched_depth;
    o.max_preemptions = c.max_preemptions;
    o.max_seconds = c.seconds;
    o.max_steps = static_cast<uint64_t>(MaxSteps(c));
    o.params = ParamsOf(c);
    o.params.erase("execution");
    if (c.sched_executions > 0) {
      o.max_executions = static_cast<uint64_t>(c.sched_executions);
    } else if (c.sched == "dfs") {
      o.max_executions = 0;  // until exhausted
    } else {
      o.max_executions = c.seconds > 0 ? std::numeric_limits<uint64_t>::max() : 1000;
    }
    if (c.sched == "dfs") {
      // Programs 0..N-1, each explored exhaustively in turn: the space's
      // (--sched_program_ops), else program p is the lists of execution p
      // (1: execution 0's only). A failing execution is always of the last
      // program set up.
      o.num_programs = static_cast<uint64_t>(c.sched_programs);
      if (c.sched_program_ops > 0) {
        std::string error;
        space = std::make_shared<const ProgramSpace>(c, &error);
        if (!error.empty()) {
          std::fprintf(stderr, "flowcheck: %s\n", error.c_str());
          result.status = 2;
          return result;
        }
        o.num_programs = space->size();
        std::fprintf(stderr, "flowcheck: dfs: programs: %s\n", space->Describe().c_str());
      }
      o.execution_params = [c, space](uint64_t) {
        const uint64_t p = sched::ProgramIndex();
        return ListParams(c, p, DfsProgram(c, space.get(), p));
      };
    } else {
      o.execution_params = [c](uint64_t i) { return ListParams(c, i, GeneratedLists(c, i)); };
    }
  }

  o.record_bytes = record_bytes;
  return Execute(o, c, input, fixed, space, /*quiet=*/false);
}

ControlledResult RunProgram(const StressConfig& c, const OpLists& lists,
                            const std::vector<uint8_t>* bytes, bool quiet, uint64_t search_seed) {
  sched::Options o;
  o.scenario = kScenario;
  o.target = kTarget;
  if (bytes != nullptr) {
    o.strategy = sched::StrategyKind::kBytes;
    o.bytes = *bytes;
    o.max_executions = 1;
  } else {
    sched::Parse(c.sched, &o.strategy);  // random, pct or dfs (Validate)
    o.seed = search_seed != 0 ? search_seed : c.seed;
    o.pct_depth = c.sched_depth;
    o.max_preemptions = c.max_preemptions;
    o.max_executions = c.sched_executions > 0 ? static_cast<uint64_t>(c.sched_executions)
                       : c.sched == "dfs"     ? 0
                                              : 1000;
    o.record_bytes = true;
  }
  o.max_steps = static_cast<uint64_t>(MaxSteps(c));
  o.params = ParamsOf(c);
  for (auto& [k, v] : ListParams(c, 0, lists)) o.params[k] = v;
  o.write_schedule = !c.schedule_out.empty();
  o.schedule_out = c.schedule_out;
  o.verbosity = 0;
  if (quiet) o.out = nullptr;
  return Execute(o, c, c, std::make_shared<Lists>(lists), nullptr, quiet);
}

}  // namespace program
}  // namespace flowcheck
