// fuzz/executor.cc: the reserve and flow executors on a Lockstep, the
// legalisation rules, and the failure report (see executor.h).
#include "fuzz/executor.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>

#include "absl/strings/str_format.h"
#include "core/oracle/flow_oracle.h"
#include "core/oracle/lockstep.h"
#include "lockcheck/spinlock.h"

namespace flowcheck {
namespace fuzz {
namespace {

using oracle::FlowOracle;
using oracle::Lockstep;
using oracle::Op;
using oracle::OpKind;
using oracle::StepResult;

constexpr int kMaxGrantsInFlight = 7;  // a request's flow ring: CIRC_SPACE of 8 slots
constexpr int kMaxRunAll = 64;         // run_all_work bound (a wakeup chain is shorter)
constexpr int kMaxFill = 33;           // 32 flows + the -EAGAIN
constexpr const char* kFlowFirst =
    "the QP owns no flow yet; its caller sets up the flow before RcvArray entries";

// Measurement builds only (tools/fuzz_ceiling_study.py sets it for this file,
// never a config): the state comparison and the invariants run once, after a
// program's last op, instead of after every op; return values are still
// compared after every call. It shows what relaxing "after every operation"
// would buy (docs/fuzz.md, "Speed"). A failure found this way is re-run
// traced, which checks every call as usual.
#ifdef FLOWCHECK_STUDY_END_CHECKS_ONLY
constexpr bool kStudyEndChecksOnly = true;
#else
constexpr bool kStudyEndChecksOnly = false;
#endif

// One Lockstep per QP count, reset for every program (construction costs
// ~50 us under ASan, a reset a fraction of that; Lockstep::Reset's contract
// is "as fresh", which //fuzz:executor_test checks). Not thread-safe: one
// program at a time per process, as libFuzzer and the tests run them.
Lockstep& PooledLockstep(int num_qps, uint64_t seed) {
  static Lockstep* pool[kMaxFlowQps + 1] = {};
  if (num_qps < 1 || num_qps > kMaxFlowQps) {
    std::fprintf(stderr, "fuzz executor: %d QPs outside 1..%d\n", num_qps, kMaxFlowQps);
    std::abort();
  }
  Lockstep*& ls = pool[num_qps];
  if (ls == nullptr) {
    ls = new Lockstep(num_qps, seed);  // never destroyed: lives as long as the process
  } else {
    ls->Reset(seed);
  }
  return *ls;
}

class Runner {
 public:
  Runner(const Program& p, const ExecOptions& options)
      : p_(p), options_(options), ls_(PooledLockstep(p.num_qps, p.seed)) {
    mask_ = options_.on_step ? ModelMask() : 0;
  }

  ExecResult Run() {
    // The initial state must already agree (a bug in the model's init code
    // shows here, as "op #0 (before it)").
    if (!p_.ops.empty()) CheckInitial();
    for (index_ = 0; index_ < p_.ops.size() && result_.ok; ++index_) {
      sub_ = 0;
      if (p_.format == Format::kReserve) {
        RunReserveOp(p_.ops[index_]);
      } else {
        RunFlowOp(p_.ops[index_]);
      }
    }
    if (EndChecksOnly() && result_.ok && !p_.ops.empty()) {
      index_ = p_.ops.size() - 1;
      StepResult r;
      r.diffs = ls_.Compare();
      Check(r, /*check_invariants=*/true, mask_, 0,
            [] { return std::string("no call: the state after the last op (study build)"); },
            false);
    }
    return result_;
  }

 private:
  const FlowOracle& o() const { return ls_.oracle(); }

  // Per-op state and invariant checks skipped (study build, untraced only).
  bool EndChecksOnly() const { return kStudyEndChecksOnly && !options_.on_step; }

  uint64_t ModelMask() {
    hfi1_ctxtdata* rcd = ls_.rcd();
    unsigned long flags;
    spin_lock_irqsave(&rcd->exp_lock, flags);
    const uint64_t m = rcd->flow_mask;
    spin_unlock_irqrestore(&rcd->exp_lock, flags);
    return m;
  }

  uint64_t OracleMask() const {
    uint64_t m = 0;
    for (int f = 0; f < oracle::kNumFlows; ++f) {
      if (o().reserved(f)) m |= 1ull << f;
    }
    return m;
  }

  // The k-th flow (mod their number) the harness reserved, or -1 if none.
  int HarnessFlow(int64_t k) const {
    const unsigned long h = o().harness_flows();
    const int n = __builtin_popcountl(h);
    if (n == 0) return -1;
    int want = static_cast<int>(k % n);
    for (int f = 0; f < oracle::kNumFlows; ++f) {
      if (((h >> f) & 1) && want-- == 0) return f;
    }
    return -1;
  }

  // One call to the model and the oracle, then the comparison and the
  // invariants. Returns the model's return value; on failure result_.ok is
  // false and the callers stop.
  // `instead`, if set, says why a legal caller makes this call rather than
  // the op's own (the legalisation rules, shown in the trace).
  int64_t Call(const Op& op, const char* instead = nullptr) {
    if (batch_ && !options_.on_step) return BatchedCall(op);
    const uint64_t before = mask_;
    const uint64_t oracle_before = options_.on_step ? OracleMask() : 0;
    StepResult r = ls_.Step(op, /*compare_state=*/!EndChecksOnly());
    ++result_.calls;
    if (options_.on_step) mask_ = ModelMask();
    Check(r, /*check_invariants=*/!EndChecksOnly(), before, oracle_before,
          [&op, instead] {
            std::string call = oracle::OpToString(op);
            if (instead != nullptr) call += absl::StrFormat(" (instead: %s)", instead);
            return call;
          },
          true);
    ++sub_;
    return r.model_ret;
  }

  // Ops that make many calls (fill, release_all, run_all_work), on the
  // fuzzing fast path: each call's return value is compared with the
  // oracle's at once, the full state and the invariants once after the op's
  // last call (the "after every operation"; the per-call checks
  // cost ~20x the call). A trace checks after every call, and a program
  // that fails is re-run with one (Execute), so its report still names the
  // first failing call. Calls in a batch take no `instead`.
  void BeginBatch() { batch_ = true; }
  int64_t BatchedCall(const Op& op) {
    StepResult r = ls_.Step(op, /*compare_state=*/false);
    ++result_.calls;
    if (r.model_ret != r.oracle_ret) {
      Check(r, /*check_invariants=*/false, mask_, 0, [&op] { return oracle::OpToString(op); },
            true);
    } else {
      deferred_ = r;
      deferred_pending_ = true;
    }
    ++sub_;
    return r.model_ret;
  }
  void EndBatch() {
    batch_ = false;
    if (!deferred_pending_ || !result_.ok) return;
    deferred_pending_ = false;
    if (EndChecksOnly()) return;
    deferred_.diffs = ls_.Compare();
    --sub_;  // reported as the op's last call, whose state this is
    const Op op = deferred_.op;
    Check(deferred_, /*check_invariants=*/true, mask_, 0,
          [&op] { return oracle::OpToString(op); }, true);
    ++sub_;
  }

  // A step that calls nothing (the op is not the harness's to make in this
  // state): model and oracle must still agree on the state it looked at.
  // `why()` says why; it is formatted only for a trace or a failure.
  template <typename Why>
  void NoCall(Why why) {
    StepResult r;
    if (!EndChecksOnly()) r.diffs = ls_.Compare();
    Check(r, /*check_invariants=*/false, mask_, options_.on_step ? OracleMask() : 0,
          [&why] { return "no call: " + std::string(why()); }, false);
    ++sub_;
  }

  void CheckInitial() {
    StepResult r;
    r.diffs = ls_.Compare();
    initial_ = true;
    Check(r, /*check_invariants=*/true, mask_, options_.on_step ? OracleMask() : 0,
          [] { return std::string("no call: the state before the first op"); }, false);
    initial_ = false;
  }

  // The invariants after a step. The fuzzing fast path asks for the verdict
  // only (same checks, nothing formatted) and runs the full checker for the
  // list when it has to report it: a failing step, or a trace.
  std::vector<InvariantViolation> Invariants(bool* divergent) {
    if (!options_.on_step) {
      const InvariantVerdict verdict = ls_.CheckInvariantsVerdict();
      *divergent = verdict.upstream_divergence;
      if (!verdict.violation && !(options_.strict && verdict.upstream_divergence)) return {};
    }
    std::vector<InvariantViolation> v = ls_.CheckInvariants();
    *divergent = HasSeverity(v, Severity::kUpstreamDivergence);
    return v;
  }

  // `describe()` returns the call made (or "no call: ..."); it runs only for
  // a trace or a failure, so the passing fast path formats nothing.
  template <typename Describe>
  void Check(const StepResult& r, bool check_invariants, uint64_t before,
             uint64_t oracle_before, Describe describe, bool called) {
    bool divergent = false;
    std::vector<InvariantViolation> v;
    if (check_invariants) v = Invariants(&divergent);
    std::vector<InvariantViolation> failing;
    for (InvariantViolation& x : v) {
      const bool upstream = x.severity == Severity::kUpstreamDivergence;
      if (!upstream || options_.strict)
        failing.push_back(std::move(x));
      else if (options_.on_step)
        divergences_now_.insert(x.ToString());
    }
    if (divergent) ++result_.divergent_steps;
    std::string call;
    if (options_.on_step || !r.ok() || !failing.empty()) call = describe();
    if (options_.on_step && !initial_) {
      StepRecord rec;
      rec.op_index = index_;
      rec.sub = sub_;
      rec.call = call;
      rec.called = called;
      rec.model_ret = r.model_ret;
      rec.oracle_ret = r.oracle_ret;
      rec.mask_before = before;
      rec.mask_after = mask_;
      for (const std::string& d : divergences_now_) {
        if (!divergences_seen_.count(d)) rec.new_divergences.push_back(d);
      }
      divergences_seen_ = std::move(divergences_now_);
      divergences_now_.clear();
      options_.on_step(rec);
    }
    if (r.ok() && failing.empty()) return;
    result_.ok = false;
    Failure& f = result_.failure;
    f.layer = r.ok() ? FailLayer::kInvariant : FailLayer::kOracle;
    f.op_index = index_;
    f.sub = sub_;
    f.op = initial_ ? "(the initial state)" : DescribeOp(p_.format, p_.ops[index_]);
    f.call = call;
    f.model_ret = r.model_ret;
    f.oracle_ret = r.oracle_ret;
    f.diffs = r.diffs;
    f.violations = std::move(failing);
    // The fast path tracks no masks; Execute re-runs a failing program with
    // tracing to report them (the run is deterministic).
    f.has_masks = options_.on_step != nullptr;
    f.mask_before = before;
    f.mask_after = mask_;
    f.oracle_mask_before = oracle_before;
    f.oracle_mask_after = f.has_masks ? OracleMask() : 0;
  }

  void RunReserveOp(const FuzzOp& op) {
    switch (static_cast<ReserveOp>(op.code)) {
      case ReserveOp::kReserve:
        Call({OpKind::kReserveFlow, 0, op.arg});
        break;
      case ReserveOp::kReleaseOwned: {
        const int f = HarnessFlow(op.arg);
        if (f < 0)
          NoCall([] { return "the harness owns no flow"; });
        else
          Call({OpKind::kReleaseFlow, 0, f});
        break;
      }
      case ReserveOp::kReleaseIndex: {
        const int64_t idx = op.arg;
        if (idx >= 0 && idx < oracle::kNumFlows &&
            o().owner(static_cast<int>(idx)) == FlowOracle::kHarness) {
          Call({OpKind::kReleaseFlow, 0, idx});
        } else if (idx < 0 || idx >= oracle::kNumFlows) {
          NoCall([idx] {
            return absl::StrFormat(
                "%d is not a flow index; releasing it is not the harness's to do", idx);
          });
        } else if (o().owner(static_cast<int>(idx)) == FlowOracle::kFree) {
          NoCall([idx] {
            return absl::StrFormat("flow %d is free; releasing it would be a double free", idx);
          });
        } else {
          NoCall([idx, owner = o().owner(static_cast<int>(idx))] {
            return absl::StrFormat("flow %d is owned by qp#%d, not by the harness", idx, owner);
          });
        }
        break;
      }
      case ReserveOp::kQpSetup:
        Call({OpKind::kSetupHwFlow, op.qp});
        break;
      case ReserveOp::kQpClear:
        Call({OpKind::kClearHwFlow, op.qp});
        break;
      case ReserveOp::kFill:
        BeginBatch();
        for (int i = 0; i < kMaxFill && result_.ok; ++i) {
          if (Call({OpKind::kReserveFlow, 0, -1}) < 0) break;
        }
        EndBatch();
        break;
      case ReserveOp::kReleaseAll:
        BeginBatch();
        for (int f = HarnessFlow(0); f >= 0 && result_.ok; f = HarnessFlow(0)) {
          Call({OpKind::kReleaseFlow, 0, f});
        }
        EndBatch();
        if (sub_ == 0) NoCall([] { return "the harness owns no flow"; });
        break;
      case ReserveOp::kRunWork:
        Call({OpKind::kRunWork});
        break;
    }
  }

  // The RESYNC PSN: the peer sends (gen << 11) - 1 (sequence 0x7FF of the
  // generation before), gen chosen relative to the QP's state so that the
  // acceptance window is hit often.
  uint32_t ResyncPsn(int qp, uint8_t sel, int64_t b) const {
    const uint32_t g = o().qp(qp).generation;
    const uint32_t base = g == oracle::kReservedGeneration
                              ? o().generation(static_cast<int>(b % oracle::kNumFlows))
                              : g;
    uint32_t gen = 0;
    switch (sel % 8) {
      case 0:
        gen = g == oracle::kReservedGeneration ? base : FlowOracle::NextGeneration(g);
        break;
      case 1:
        gen = base;
        break;  // a duplicate
      case 2:
        gen = FlowOracle::NextGeneration(FlowOracle::NextGeneration(base));
        break;
      case 3:
        gen = oracle::kReservedGeneration;
        break;
      case 4:
        gen = 0xFFFFE;
        break;
      case 5:
        gen = 0;
        break;
      case 6:
        gen = static_cast<uint32_t>(b);
        break;
      default:  // a PSN inside a generation, not at its end
        return (static_cast<uint32_t>(b * 0x1111) & 0xFFFFF) << 11 |
               static_cast<uint32_t>(b & 0x7F);
    }
    return (gen << 11) - 1;
  }

  void RunFlowOp(const FuzzOp& op) {
    const int q = op.qp;
    const bool owns_flow = o().qp(q).flow != oracle::kNoFlow;
    switch (static_cast<FlowOp>(op.code)) {
      case FlowOp::kSetup:
        Call({OpKind::kSetupHwFlow, q});
        break;
      case FlowOp::kClear:
        Call({OpKind::kClearHwFlow, q});
        break;
      case FlowOp::kFlush:
        Call({OpKind::kFlushWait, q});
        break;
      case FlowOp::kRarrWait:
        // hfi1_kern_exp_rcv_setup runs only once the QP has its flow.
        if (owns_flow)
          Call({OpKind::kRarrWait, q});
        else
          Call({OpKind::kSetupHwFlow, q}, kFlowFirst);
        break;
      case FlowOp::kRarrGrant: {
        const oracle::QueueState& rq = o().rarr_queue();
        const bool may_allocate =
            rq.members.empty() || (rq.members.front() == q && o().qp(q).waiting);
        if (!owns_flow) {
          Call({OpKind::kSetupHwFlow, q}, kFlowFirst);
        } else if (grants_[q] >= kMaxGrantsInFlight) {
          NoCall([] { return "the flow ring is full: hfi1_kern_exp_rcv_setup returns -EINVAL"; });
        } else if (!may_allocate) {
          Call({OpKind::kRarrWait, q},
               "another QP waits ahead on rarr_queue, so "
               "hfi1_kern_exp_rcv_setup queues this one");
        } else {
          Call({OpKind::kRarrGrant, q});
          ++grants_[q];
        }
        break;
      }
      case FlowOp::kRarrRelease:
        if (grants_[q] == 0) {
          NoCall([] { return "nothing programmed: hfi1_kern_exp_rcv_clear returns -EINVAL"; });
        } else {
          Call({OpKind::kRarrRelease, q});
          --grants_[q];
        }
        break;
      case FlowOp::kSetWantsFlow:
        Call({OpKind::kSetWantsFlow, q, op.arg});
        break;
      case FlowOp::kResync:
        Call({OpKind::kResync, q, ResyncPsn(q, op.sel, op.arg)});
        break;
      case FlowOp::kClearResync:
        Call({OpKind::kClearResync, q});
        break;
      case FlowOp::kRunWork:
        Call({OpKind::kRunWork});
        break;
      case FlowOp::kRunAllWork:
        BeginBatch();
        for (int i = 0; i < kMaxRunAll && result_.ok; ++i) {
          if (Call({OpKind::kRunWork}) == 0) break;
        }
        EndBatch();
        break;
      case FlowOp::kReserve:
        Call({OpKind::kReserveFlow, 0, op.arg});
        break;
      case FlowOp::kReleaseOwned: {
        const int f = HarnessFlow(op.arg);
        if (f < 0)
          NoCall([] { return "the harness owns no flow"; });
        else
          Call({OpKind::kReleaseFlow, 0, f});
        break;
      }
    }
  }

  const Program& p_;
  const ExecOptions& options_;
  Lockstep& ls_;
  int grants_[kMaxFlowQps] = {};  // RcvArray segments each QP holds (rarr_grant - rarr_release)
  uint64_t mask_ = 0;        // the model's flow_mask after the last step
  size_t index_ = 0;
  int sub_ = 0;
  bool initial_ = false;
  bool batch_ = false;             // inside a multi-call op (BeginBatch)
  bool deferred_pending_ = false;  // a batched call whose state is unchecked
  StepResult deferred_;            // the last such call
  ExecResult result_;
  std::set<std::string> divergences_seen_, divergences_now_;  // trace only
};

}  // namespace

ExecResult Execute(const Program& p, const ExecOptions& options) {
  if (p.format == Format::kPure) return ExecutePure(p, options);
  ExecResult r = Runner(p, options).Run();
  if (r.ok || options.on_step) return r;
  // Found on the fast path: run again with a trace to get the failing step's
  // flow_mask before and after. Same program, same failure.
  ExecOptions traced = options;
  traced.on_step = [](const StepRecord&) {};
  ExecResult again = Runner(p, traced).Run();
  // The trace checks after every call where the fast path checked a
  // multi-call op once at its end: it fails at the same call, or earlier.
  const bool later = again.failure.op_index > r.failure.op_index ||
                     (again.failure.op_index == r.failure.op_index &&
                      again.failure.sub > r.failure.sub);
  if (again.ok || later) {
    std::fprintf(stderr,
                 "fuzz executor: the traced re-run of a failing program did not fail "
                 "the same way: the run is not deterministic (a harness bug)\n");
    std::abort();
  }
  return again;
}

std::string FormatMask(uint64_t mask) {
  std::string pic;
  for (int f = 0; f < 32; ++f) pic += ((mask >> f) & 1) ? '#' : '.';
  std::string s = absl::StrFormat("0x%08x [%s]", mask & 0xFFFFFFFFull, pic);
  if (mask >> 32) s += absl::StrFormat(" + bits above 31: 0x%x", mask >> 32);
  return s;
}

std::string FailureReport(const Program& p, const Failure& f) {
  std::string layer = "oracle";
  if (f.layer == FailLayer::kInvariant) {
    layer = "invariant " + (f.violations.empty() ? std::string("?") : f.violations[0].id);
  }
  std::string s =
      absl::StrFormat("flowcheck: FAIL [%s] %s op #%u%s %s\n", layer, TargetName(p.format),
                      f.op_index, f.sub ? absl::StrFormat(" (call %d)", f.sub + 1) : "", f.op);
  s += absl::StrFormat("  call:     %s\n", f.call);
  s += absl::StrFormat("  returned: model %d, %s %d%s\n", f.model_ret,
                       p.format == Format::kPure ? "reference" : "oracle", f.oracle_ret,
                       f.model_ret == f.oracle_ret ? "" : "  <-- differ");
  if (f.has_masks) {
    const char* other = p.format == Format::kPure ? "reference" : "oracle";
    s += absl::StrFormat("  flow_mask before: %-9s %s\n", "model", FormatMask(f.mask_before));
    s += absl::StrFormat("                    %-9s %s\n", other, FormatMask(f.oracle_mask_before));
    s += absl::StrFormat("  flow_mask after:  %-9s %s\n", "model", FormatMask(f.mask_after));
    s += absl::StrFormat("                    %-9s %s\n", other, FormatMask(f.oracle_mask_after));
  }
  if (!f.diffs.empty()) {
    s += absl::StrFormat("  differences (model vs %s):\n",
                         p.format == Format::kPure ? "reference" : "oracle");
    for (const std::string& d : f.diffs) s += "    " + d + "\n";
  }
  if (!f.violations.empty()) {
    s += "  invariants violated:\n";
    for (const InvariantViolation& v : f.violations) s += "    " + v.ToString() + "\n";
  }
  return s;
}

bool StrictFromEnv() {
  const char* v = std::getenv("FLOWCHECK_FUZZ_STRICT");
  return v != nullptr && v[0] == '1';
}

int FuzzOneInput(Format format, const uint8_t* data, size_t size) {
  static const bool strict = StrictFromEnv();
  if (kStudyEndChecksOnly) {
    static const bool said = [] {
      std::fprintf(stderr,
                   "flowcheck: STUDY BUILD (FLOWCHECK_STUDY_END_CHECKS_ONLY): state and "
                   "invariants checked after each program's last op only; not for fuzzing\n");
      return true;
    }();
    (void)said;
  }
  static Program* program = new Program();  // reused: no allocation once warm
  if (!DecodeAs(format, data, size, program)) return -1;
  ExecOptions options;
  options.strict = strict;
  ExecResult r = Execute(*program, options);
  if (r.ok) return 0;
  std::string report = FailureReport(*program, r.failure);
  std::fprintf(stderr, "%s  reproduce: tools/reproduce.sh%s <this input's crash file>\n",
               report.c_str(), strict ? " --strict" : "");
  std::fflush(stderr);
  std::abort();
}

}  // namespace fuzz
}  // namespace flowcheck
