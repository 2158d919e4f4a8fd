// fuzz/executor/sched_executor.cc: ExecuteSched (see sched_executor.h):
// one controlled execution of an 'S' program, its threads' ops legalised
// into the driver's callers as the sequential executor does
// (docs/fuzz-format.md, 'F'), with the checks of sched_state.h.
#include "fuzz/executor/sched_executor.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "core/callers.h"
#include "core/exp_rcv.h"
#include "core/tid_rdma.h"
#include "fuzz/executor/legalise.h"
#include "fuzz/executor/sched_state.h"
#include "fuzz/sched_fuzz_format.h"
#include "lockcheck/lockdep.h"
#include "sched/cli.h"
#include "sched/run.h"
#include "sched/sched.h"

namespace flowcheck {
namespace fuzz {
namespace sched_exec {
namespace {

constexpr int kMaxRunAll = 64;   // run_all_work, as in the sequential executor
constexpr int kMaxGrants = 7;    // a request's flow ring (docs/fuzz-format.md)

// One Lockstep (model objects + its initial oracle) per QP count, reset per
// program. After an execution that failed before its end's checks completed,
// its locks may still be held by threads the scheduler cancelled, so it is
// dropped (kept reachable, never destroyed: its destructor would take those
// locks) and the next program gets a new one. A dropped Lockstep gives back
// its requests' flow arrays (the bulk of its memory; no lock guards them):
// a minimizer's thousands of failing executions held gigabytes otherwise.
oracle::Lockstep* g_pool[kMaxFlowQps + 1] = {};

oracle::Lockstep* SchedLockstep(int num_qps, uint64_t seed) {
  oracle::Lockstep*& ls = g_pool[num_qps];
  if (ls == nullptr) {
    ls = new oracle::Lockstep(num_qps, seed);
  } else {
    ls->Reset(seed);
  }
  return ls;
}

void DropSchedLockstep(int num_qps) {
  static std::vector<oracle::Lockstep*>* dropped = new std::vector<oracle::Lockstep*>();
  oracle::Lockstep* ls = g_pool[num_qps];
  if (ls == nullptr) return;
  for (int i = 0; i < ls->num_qps(); ++i) {
    hfi1_kern_exp_rcv_free_flows(&ls->qp(i)->priv->model_swqe->tid_req);
    hfi1_kern_exp_rcv_free_flows(&ls->qp(i)->priv->model_ack->tid_req);
  }
  dropped->push_back(ls);
  g_pool[num_qps] = nullptr;
}

bool OwnsFlow(rvt_qp* qp) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  const bool owns = qp->priv->flow_state.index < RXE_NUM_TID_FLOWS;
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return owns;
}

// hfi1_kern_exp_rcv_setup's test: does another QP wait ahead on rarr_queue?
bool RarrWaitersAhead(rvt_qp* qp) {
  hfi1_ctxtdata* rcd = qp->priv->rcd;
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  spin_lock(&rcd->exp_lock);
  const bool waiters = kernel_tid_waiters(rcd, &rcd->rarr_queue, qp);
  spin_unlock(&rcd->exp_lock);
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return waiters;
}

uint32_t ResyncPsnNow(rvt_qp* qp, uint8_t sel, int64_t b) {
  hfi1_ctxtdata* rcd = qp->priv->rcd;
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  spin_lock(&rcd->exp_lock);
  const uint32_t g = qp->priv->flow_state.generation;
  const uint32_t fg = rcd->flows[b % RXE_NUM_TID_FLOWS].generation;
  spin_unlock(&rcd->exp_lock);
  spin_unlock_irqrestore(&qp->s_lock, flags);
  return ResyncPsn(g, fg, sel, b);
}

class ThreadRunner {
 public:
  ThreadRunner(State* st, int t) : st_(st), t_(t), observer_(st, t) {}

  void Run(size_t first, int count) {
    for (int i = 0; i < count; ++i) {
      RunOp(first + i);
      bool failed;
      {
        HarnessScope ignore;
        failed = !st_->r->ok;
      }
      if (failed) sched::Fail(st_->r->line);  // no lock held here
    }
  }

 private:
  // `span_qp`: for a kGap op whose QP's s_lock spans its effect and its
  // observer (sched_state.h); nullptr otherwise.
  void Begin(size_t index, Cls cls, const char* instead, rvt_qp* span_qp = nullptr) {
    HarnessScope ignore;
    ThreadState& me = st_->th[t_];
    me.span_qp = span_qp;
    me.others_busy_at_start = me.work_busy_at_start = false;
    for (size_t o = 0; o < st_->th.size(); ++o) {
      if (static_cast<int>(o) == t_ || !st_->th[o].busy) continue;
      me.others_busy_at_start = true;
      if (st_->th[o].cls == Cls::kUnobserved) me.work_busy_at_start = true;
    }
    if (cls == Cls::kUnobserved) ++st_->work_seq;
    me.work_seq_at_start = st_->work_seq;
    me.busy = true;
    me.cls = cls;
    me.observed = false;
    me.op_index = index;
    me.seq_at_start = ++st_->op_seq;
    st_->Event(t_, [&] {
      return absl::StrFormat("op #%u %s begins%s%s", index,
                             DescribeOp(st_->p->format, st_->p->ops[index]),
                             instead != nullptr ? " (instead: " : "",
                             instead != nullptr ? std::string(instead) + ")" : "");
    });
  }

  // Ends the current op. `apply` advances the oracle for a kWants or
  // kUnobserved op; it is called only if the op's order with the others is
  // known (sched_state.h), else the oracle stops. Then the checks of an op
  // without a usable observed section.
  void End(const std::function<void()>& apply = nullptr) {
    Cls cls;
    size_t op_index;
    {
      HarnessScope ignore;
      ThreadState& me = st_->th[t_];
      cls = me.cls;
      const bool alone = cls == Cls::kUnobserved
                             ? me.seq_at_start == st_->op_seq && !me.others_busy_at_start
                             : me.work_seq_at_start == st_->work_seq && !me.work_busy_at_start;
      if ((cls == Cls::kUnobserved || cls == Cls::kWants) && st_->in_sync) {
        if (alone) {
          if (apply) apply();
        } else {
          st_->OracleOff(absl::StrFormat(
              "thread t%d's op #%u %s is not observed, and an op it does not commute with "
              "overlapped it",
              t_, me.op_index, DescribeOp(st_->p->format, st_->p->ops[me.op_index])));
        }
      }
      op_index = me.op_index;
    }
    if (cls != Cls::kAtomic && cls != Cls::kGap) {
      st_->CheckAfterOp(t_, [&] {
        return absl::StrFormat("[t%d] after op #%u %s", t_, op_index,
                               DescribeOp(st_->p->format, st_->p->ops[op_index]));
      });
    }
    HarnessScope ignore;
    ThreadState& me = st_->th[t_];
    me.busy = false;
    if (cls == Cls::kUnobserved) ++st_->work_seq;
    ++st_->op_seq;
    st_->Event(t_, [&] { return absl::StrFormat("op #%u ends", me.op_index); });
  }

  void NoCall(size_t index, const char* why) {
    HarnessScope ignore;
    st_->Event(t_, [&] {
      return absl::StrFormat("op #%u %s: no call: %s", index,
                             DescribeOp(st_->p->format, st_->p->ops[index]), why);
    });
  }

  void Setup(size_t index, rvt_qp* qp, const char* instead) {
    Begin(index, Cls::kGap, instead, qp);
    caller_setup_hw_flow(qp, &observer_);
    End();
  }

  void RunOp(size_t index) {
    const FuzzOp op = st_->p->ops[index];  // read-only since the spawn
    const int q = op.qp;
    rvt_qp* qp = st_->qps[q];
    ThreadState& me = st_->th[t_];  // this thread's own fields only
    const int local = q % sched_v1::kQpsPerThread;
    switch (static_cast<FlowOp>(op.code)) {
      case FlowOp::kSetup:
        Setup(index, qp, nullptr);
        break;
      case FlowOp::kClear:
        Begin(index, Cls::kGap, nullptr, qp);
        caller_clear_hw_flow(qp, &observer_);
        End();
        break;
      case FlowOp::kFlush:
        Begin(index, Cls::kGap, nullptr, qp);
        caller_flush_wait(qp, &observer_);
        End();
        break;
      case FlowOp::kRarrWait:
        if (!OwnsFlow(qp)) {
          Setup(index, qp, "setup_hw_flow: the QP owns no flow");
          break;
        }
        Begin(index, Cls::kAtomic, nullptr);
        caller_rarr_wait(qp, &observer_);
        End();
        break;
      case FlowOp::kRarrGrant:
        if (!OwnsFlow(qp)) {
          Setup(index, qp, "setup_hw_flow: the QP owns no flow");
        } else if (me.grants[local] >= kMaxGrants) {
          NoCall(index, "the request's flow ring is full (-EINVAL)");
        } else if (RarrWaitersAhead(qp)) {
          Begin(index, Cls::kAtomic, "rarr_wait: another QP waits ahead on rarr_queue");
          caller_rarr_wait(qp, &observer_);
          End();
        } else {
          Begin(index, Cls::kPostSection, nullptr);
          caller_rarr_grant(qp, &observer_);
          ++me.grants[local];
          End();
        }
        break;
      case FlowOp::kRarrRelease:
        if (me.grants[local] == 0) {
          NoCall(index, "the QP holds no RcvArray grant (-EINVAL)");
          break;
        }
        Begin(index, Cls::kPostSection, nullptr);
        caller_rarr_release(qp, &observer_);
        --me.grants[local];
        End();
        break;
      case FlowOp::kSetWantsFlow:
        Begin(index, Cls::kWants, nullptr);
        if (op.arg == 0) {
          HarnessScope ignore;
          if (st_->waited[q]) st_->waiter_gave_up = true;
        }
        caller_set_wants_flow(qp, op.arg != 0);
        End([&] { st_->oracle.SetWantsFlow(q, op.arg != 0); });
        break;
      case FlowOp::kResync: {
        const uint32_t psn = ResyncPsnNow(qp, op.sel, op.arg);
        Begin(index, Cls::kGap, nullptr);
        caller_resync(qp, psn, &observer_);
        End();
        break;
      }
      case FlowOp::kClearResync:
        Begin(index, Cls::kGap, nullptr, qp);
        caller_clear_resync(qp, &observer_);
        End();
        break;
      case FlowOp::kRunWork:
      case FlowOp::kRunAllWork: {
        const int max = op.code == static_cast<uint8_t>(FlowOp::kRunWork) ? 1 : kMaxRunAll;
        Begin(index, Cls::kUnobserved, nullptr);
        int ran = 0;
        while (ran < max && st_->ls->wq().RunOne()) ++ran;
        End([&] {
          int oracle_ran = 0;
          while (oracle_ran < max && st_->oracle.RunOneWork()) ++oracle_ran;
          if (oracle_ran != ran) {
            st_->SetFail("oracle",
                         absl::StrFormat("[t%d] op #%u: the model ran %d work item(s), the "
                                         "oracle %d",
                                         t_, index, ran, oracle_ran),
                         "");
          }
        });
        break;
      }
      case FlowOp::kReserve:
        Begin(index, Cls::kAtomic, nullptr);
        caller_reserve_flow(st_->rcd, static_cast<int>(op.arg), &observer_);
        End();
        break;
      case FlowOp::kReleaseOwned: {
        int flow = -1;
        {
          HarnessScope ignore;
          if (!me.bare.empty()) flow = me.bare[op.arg % me.bare.size()];
        }
        if (flow < 0) {
          NoCall(index, "the thread owns no bare flow");
          break;
        }
        Begin(index, Cls::kAtomic, nullptr);
        caller_release_flow(st_->rcd, flow, &observer_);
        End();
        break;
      }
    }
  }

  State* const st_;
  const int t_;
  SectionObserver observer_;
};

}  // namespace
}  // namespace sched_exec

namespace sched_exec {
namespace {

// One execution's set-up (sched::Run calls it once per execution): the
// context and QPs of a pooled Lockstep, the shared State, a logical thread
// per op list and the end's checks. *ls and *keep receive the execution's
// Lockstep and State.
void SetUpExecution(const Program& p, const SchedExecOptions& options, SchedExecResult* result,
                    oracle::Lockstep** ls_out, std::unique_ptr<State>* keep) {
  oracle::Lockstep* ls = SchedLockstep(p.num_qps, p.seed);
  *ls_out = ls;
  auto st = std::make_unique<State>(ls->oracle());
  st->p = &p;
  st->options = &options;
  st->r = result;
  st->ls = ls;
  st->rcd = ls->rcd();
  for (int i = 0; i < ls->num_qps(); ++i) st->qps.push_back(ls->qp(i));
  st->th.resize(p.thread_ops.size());
  State* s = st.get();
  size_t first = 0;
  for (size_t t = 0; t < p.thread_ops.size(); ++t) {
    const int count = p.thread_ops[t];
    sched::Spawn(absl::StrFormat("t%u", t), [s, t, first, count] {
      ThreadRunner(s, static_cast<int>(t)).Run(first, count);
    });
    first += count;
  }
  sched::AtEnd([s] {
    s->Final();
    s->clean_end = true;
    if (!s->r->ok) sched::Fail(s->r->line);
  });
  *keep = std::move(st);
}

// Appends the bytes `hex` spells (lowercase or uppercase digits, two per
// byte); false if it spells none.
bool AppendHexBytes(absl::string_view hex, std::vector<uint8_t>* out) {
  if (hex.size() % 2 != 0 || !std::all_of(hex.begin(), hex.end(), absl::ascii_isxdigit)) {
    return false;
  }
  const std::string bytes = absl::HexStringToBytes(hex);
  out->insert(out->end(), bytes.begin(), bytes.end());
  return true;
}

constexpr char kScenario[] = "sched_fuzz";
constexpr char kOpsPrefix[] = "ops.t";

// The program as a schedule file's params: `threads`, `seed`, `strict` and,
// per thread i, `ops.t<i>`: its 'S' records (docs/fuzz-format.md), 8 hex
// digits each, comma-separated. The minimizer cuts elements of `ops.*`
// lists (sched/minimize.h), so it can drop a thread's op as it drops a
// stress thread's. The scheduling bytes are not kept: a schedule file
// records the decisions themselves.
sched::ScenarioParams ProgramParams(const Program& p, bool strict) {
  const EncodeResult e = Encode(p);
  if (!e.ok()) {
    std::fprintf(stderr, "ExecuteSched: the program does not encode: %s\n", e.error.c_str());
    std::abort();
  }
  sched::ScenarioParams params = {{"threads", std::to_string(p.thread_ops.size())},
                                  {"seed", std::to_string(p.seed)},
                                  {"strict", strict ? "1" : "0"}};
  size_t at = sched_v1::kHeader;
  for (size_t t = 0; t < p.thread_ops.size(); ++t) {
    std::string list;
    for (int k = 0; k < p.thread_ops[t]; ++k, at += sched_v1::kRecord) {
      list += (k ? "," : "") +
              absl::BytesToHexString(absl::string_view(
                  reinterpret_cast<const char*>(e.bytes.data() + at), sched_v1::kRecord));
    }
    params[kOpsPrefix + std::to_string(t)] = list;
  }
  return params;
}

// The program ProgramParams described (with fewer ops, after a minimizer's
// cut): the 'S' bytes rebuilt and decoded. False with *error naming the
// param that is wrong.
bool ProgramFromParams(const sched::ScenarioParams& params, Program* p, bool* strict,
                       std::string* error) {
  int threads = 0, seed = -1;
  if (!absl::SimpleAtoi(params.at("threads"), &threads) ||
      !absl::SimpleAtoi(params.at("seed"), &seed) || threads < sched_v1::kMinThreads ||
      threads > sched_v1::kMaxThreads || seed < 0 || seed > 0xFFFF) {
    *error = "params threads (2..4) and seed (0..65535): not a sched_fuzz program's";
    return false;
  }
  const std::string& s = params.at("strict");
  if (s != "0" && s != "1") {
    *error = "param strict: 0 or 1";
    return false;
  }
  *strict = s == "1";
  std::vector<uint8_t> bytes = {static_cast<uint8_t>(Format::kSched), 1,
                                static_cast<uint8_t>(threads - sched_v1::kMinThreads),
                                static_cast<uint8_t>(seed & 0xFF), static_cast<uint8_t>(seed >> 8),
                                0, 0, 0, 0};
  for (const auto& [key, value] : params) {
    if (key.rfind(kOpsPrefix, 0) != 0) continue;
    int t = -1;
    if (!absl::SimpleAtoi(key.substr(sizeof(kOpsPrefix) - 1), &t) || t < 0 || t >= threads ||
        key != kOpsPrefix + std::to_string(t)) {
      *error = "param " + key + ": no such thread";
      return false;
    }
  }
  for (int t = 0; t < threads; ++t) {
    auto it = params.find(kOpsPrefix + std::to_string(t));
    const std::string list = it == params.end() ? "" : it->second;
    int n = 0;
    for (size_t start = 0; start < list.size();) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      const std::string rec = list.substr(start, comma - start);
      if (rec.size() != 2 * sched_v1::kRecord || !AppendHexBytes(rec, &bytes)) {
        *error = "param " + it->first + ": '" + rec + "' is not a record (8 hex digits)";
        return false;
      }
      ++n;
      start = comma + 1;
    }
    if (n > sched_v1::kMaxRecordsPerThread) {
      *error = "param " + it->first + ": more than 32 records";
      return false;
    }
    bytes[5 + t] = static_cast<uint8_t>(n);
  }
  DecodeResult d = Decode(bytes.data(), bytes.size());
  if (!d.ok()) {
    *error = "params: not a sched_fuzz program: " + d.error;
    return false;
  }
  *p = std::move(d.program);
  return true;
}

// A schedule file's program, rebuilt for a replay (and the minimizer's
// candidate runs) by sched::Main in //fuzz:reproduce.
struct Replayed {
  Program p;
  SchedExecOptions options;
  SchedExecResult result;
  oracle::Lockstep* ls = nullptr;
  std::unique_ptr<State> keep;
};

const bool kRegistered = sched::RegisterScenario(sched::ScenarioSpec{
    kScenario,
    "a sched_fuzz program (threads, seed, ops.t<i>: each thread's records; strict: 1 fails "
    "known hazards too)",
    {{"threads", "2"}, {"seed", "0"}, {"strict", "0"}},
    [](const sched::ScenarioParams& params, std::string* error) -> std::function<void()> {
      auto r = std::make_shared<Replayed>();
      if (!ProgramFromParams(params, &r->p, &r->options.strict, error)) return nullptr;
      return [r] {
        // An execution that failed before its end may leave locks held by
        // cancelled threads: the next one then gets a Lockstep of its own.
        if (r->keep != nullptr && !r->keep->clean_end) DropSchedLockstep(r->p.num_qps);
        r->result = SchedExecResult{};
        SetUpExecution(r->p, r->options, &r->result, &r->ls, &r->keep);
      };
    }});
const bool kOpsAccepted = sched::AcceptParamPrefix(kScenario, "ops.");

}  // namespace
}  // namespace sched_exec

SchedExecResult ExecuteSched(const Program& p, const SchedExecOptions& options) {
  using namespace sched_exec;
  if (p.format != Format::kSched || p.thread_ops.empty()) {
    std::fprintf(stderr, "ExecuteSched: not a sched_fuzz program\n");
    std::abort();
  }
  SchedExecResult result;
  oracle::Lockstep* ls = nullptr;
  sched::Options o;
  o.scenario = kScenario;
  o.target = "//fuzz:reproduce";
  o.strategy = sched::StrategyKind::kBytes;
  o.bytes = p.schedule;
  o.write_schedule = !options.schedule_out.empty();
  if (o.write_schedule) {
    o.schedule_out = options.schedule_out;
    o.params = ProgramParams(p, options.strict);
  }
  o.max_steps = 200000;
  o.verbosity = 0;
  o.out = nullptr;
  std::unique_ptr<State> keep;  // the last execution's state, for the result
  const sched::RunResult run =
      sched::Run(o, [&] { SetUpExecution(p, options, &result, &ls, &keep); });
  result.trace_hash = run.last_trace_hash;
  result.decisions = run.last_steps;
  result.schedule_path = run.schedule_path;
  result.schedule_error = run.schedule_error;
  if (run.usage_error) {
    std::fprintf(stderr, "ExecuteSched: %s", run.output.c_str());
    std::abort();
  }
  if (run.failed) {
    if (result.ok) {  // the scheduler's own finding: deadlock, lockcheck, ...
      result.ok = false;
      result.kind = run.failure_kind;
      result.line = run.failure_line;
      result.report = run.report;
      result.fail_step = result.steps;
    } else {
      result.report += run.report;
    }
    if (keep == nullptr || !keep->clean_end) DropSchedLockstep(p.num_qps);
  }
  return result;
}

std::string SchedFailureReport(const SchedExecResult& r) {
  std::string s = absl::StrFormat("flowcheck: FAIL [%s] sched_fuzz step %u: %s\n", r.kind,
                                  r.fail_step, r.line);
  s += r.report;
  if (!s.empty() && s.back() != '\n') s += '\n';
  s += "flowcheck: trace hash " + sched::TraceHashHex(r.trace_hash) + "\n";
  return s;
}

}  // namespace fuzz
}  // namespace flowcheck
