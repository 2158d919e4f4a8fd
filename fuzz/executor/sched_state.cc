// fuzz/executor/sched_state.cc: see sched_state.h. The per-section checks
// (SectionObserver), the oracle-order rule and the end-of-execution drain.
#include "fuzz/executor/sched_state.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "core/list.h"
#include "core/oracle/compare.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/logical_thread.h"
#include "sched/sched.h"
#include "core/caller_checks.h"

namespace flowcheck {
namespace fuzz {
namespace sched_exec {

namespace {

const char* ClsName(Cls c) {
  switch (c) {
    case Cls::kGap:
      return "its flow-layer section may have run, its observed one has not";
    case Cls::kPostSection:
      return "it queues a wakeup after its observed section";
    case Cls::kWants:
      return "it sets wants_flow, which no observer sees";
    case Cls::kUnobserved:
      return "it runs sections no observer sees";
    default:
      return "";
  }
}

}  // namespace

int State::QpIndex(const rvt_qp* qp) const {
  for (size_t i = 0; i < qps.size(); ++i) {
    if (qps[i] == qp) return static_cast<int>(i);
  }
  return -1;
}

void State::Event(int thread, const std::function<std::string()>& text) {
  ++r->steps;
  if (options->trace) {
    r->events.push_back(absl::StrFormat("step %u %s %s", r->steps,
                                        thread >= 0 ? absl::StrFormat("[t%d]", thread) : "[end]",
                                        text()));
  }
}

void State::SetFail(const std::string& kind, const std::string& line, const std::string& report) {
  if (!r->ok) return;
  r->ok = false;
  r->kind = kind;
  r->line = line;
  r->report = report;
  r->fail_step = r->steps;
}

bool State::OthersDangerous(int me, std::string* why) const {
  for (size_t t = 0; t < th.size(); ++t) {
    const ThreadState& o = th[t];
    if (static_cast<int>(t) == me || !o.busy) continue;
    const bool gap_started =
        o.span_qp == nullptr || lockcheck::ScheduleLockIsHeld(&o.span_qp->s_lock);
    const bool danger = (o.cls == Cls::kGap && !o.observed && gap_started) ||
                        (o.cls == Cls::kPostSection && o.observed) || o.cls == Cls::kWants ||
                        o.cls == Cls::kUnobserved;
    if (danger) {
      *why = absl::StrFormat("thread t%u is inside op #%u %s (%s)", t, o.op_index,
                             DescribeOp(p->format, p->ops[o.op_index]), ClsName(o.cls));
      return true;
    }
  }
  return false;
}

void State::OracleOff(const std::string& why) {
  if (!in_sync) return;
  in_sync = false;
  r->oracle_off = absl::StrFormat("at step %u: %s", r->steps, why);
}

void State::JudgeInvariants(const std::vector<InvariantViolation>& v, Where where) {
  for (const InvariantViolation& x : v) {
    if (x.severity == Severity::kViolation) {
      SetFail("invariant " + x.id, where() + ": " + x.ToString(), x.ToString() + "\n");
      return;
    }
    if (options->strict) {
      SetFail("invariant " + x.id, where() + ": upstream divergence (strict): " + x.ToString(),
              x.ToString() + "\n");
      return;
    }
    if (divergences_seen.insert(x.id).second) {
      Event(-1, [&] { return "upstream divergence (not a failure): " + x.ToString(); });
    }
  }
}

void State::CompareState(hfi1_ctxtdata* rcd_locked, Where where) {
  ++r->oracle_checks;
  const std::vector<std::string> diffs =
      oracle::CompareWithModel(oracle, *rcd_locked, qps, ls->wq());
  if (diffs.empty()) return;
  std::string report;
  for (const std::string& d : diffs) report += "  " + d + "\n";
  SetFail("oracle", where() + ": model and oracle differ: " + diffs[0], report);
}

void State::CheckAfterOp(int thread, Where where) {
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  {
    HarnessScope ignore;
    CheckOptions o;
    o.harness_reserved_flows = bare_mask;
    JudgeInvariants(CheckInvariants(*rcd, qps, o), where);
    std::string why;
    if (in_sync && r->ok && !OthersDangerous(thread, &why)) CompareState(rcd, where);
  }
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
}

void SectionObserver::UnderLock(hfi1_ctxtdata* rcd, const CallerEvent& e) {
  size_t steps = 0;
  {
    HarnessScope ignore;
    Check(rcd, e);
    steps = st_->r->steps;
  }
  // A decision point inside the caller's exp_lock section (after the checks):
  // another thread may run here, and one that reaches exp_lock waits for it,
  // so contention on exp_lock is part of what the bytes choose.
  sched::Point("sched_fuzz: inside an exp_lock section");
  HarnessScope ignore;
  if (st_->r->steps != steps) {
    st_->Event(thread_, [] {
      return std::string(
          "  back in its exp_lock section after other threads ran (one that reached "
          "exp_lock waited)");
    });
  }
}

void SectionObserver::Check(hfi1_ctxtdata* rcd, const CallerEvent& e) {
  State& st = *st_;
  ThreadState& me = st.th[thread_];
  me.observed = true;
  const int q = e.qp != nullptr ? st.QpIndex(e.qp) : -1;
  // The harness's own bookkeeping, in the section of the call.
  switch (e.op) {
    case CallerOp::kReserveFlow:
      if (e.ret >= 0) {
        st.bare_mask |= 1ul << e.ret;
        me.bare.insert(std::lower_bound(me.bare.begin(), me.bare.end(), e.ret), e.ret);
      }
      break;
    case CallerOp::kReleaseFlow:
      st.bare_mask &= ~(1ul << e.arg);
      me.bare.erase(std::find(me.bare.begin(), me.bare.end(), static_cast<int>(e.arg)));
      // A bare release wakes nobody (as in the sequential targets): a waiter
      // may then sit with a flow free, by the harness's doing.
      if (!list_empty(&rcd->flow_queue.queue_head)) st.bare_release_with_waiters = true;
      break;
    case CallerOp::kSetupHwFlow:
      // The request layer keeps wanting the flow it waits for (so the send
      // engine retries when the QP is woken), as the stress driver does.
      if (e.ret < 0) {
        e.qp->priv->model_req.wants_flow = true;
        st.waited[q] = true;
      }
      break;
    case CallerOp::kFlushWait:
      if (st.waited[q]) st.flushed_waiter = true;
      break;
    default:
      break;
  }
  std::string why;
  bool compared_ret = false;
  int64_t oracle_ret = 0;
  if (st.in_sync && st.OthersDangerous(thread_, &why)) st.OracleOff(why);
  if (st.in_sync) {
    oracle::FlowOracle& o = st.oracle;
    switch (e.op) {
      case CallerOp::kSetupHwFlow:
        oracle_ret = o.SetupHwFlow(q);
        compared_ret = true;
        if (e.ret < 0) o.SetWantsFlow(q, true);
        break;
      case CallerOp::kClearHwFlow: o.ClearHwFlow(q); break;
      case CallerOp::kFlushWait: o.FlushWait(q); break;
      case CallerOp::kRarrWait: o.RarrWait(q); break;
      case CallerOp::kRarrGrant: o.RarrGrant(q); break;
      case CallerOp::kRarrRelease: o.RarrRelease(q); break;
      case CallerOp::kResync:
        oracle_ret = o.Resync(q, static_cast<uint32_t>(e.arg)) ? 1 : 0;
        compared_ret = true;
        break;
      case CallerOp::kClearResync: o.ClearResync(q); break;
      case CallerOp::kReserveFlow:
        oracle_ret = o.ReserveFlow(static_cast<int>(e.arg));
        compared_ret = true;
        break;
      case CallerOp::kReleaseFlow: o.ReleaseFlow(static_cast<int>(e.arg)); break;
      case CallerOp::kGiveUpFlowWait:    // not issued by this target
      case CallerOp::kReadReqSegment:    // nor the segments (the RcvArray
      case CallerOp::kReadRespSegment:   // side has no fuzz op and no
      case CallerOp::kReadReqClearAll:   // oracle yet)
      case CallerOp::kReadReqComplete:
      case CallerOp::kReadReqFlushComplete:
      case CallerOp::kWriteAllocSegment:
      case CallerOp::kWriteDataSegment:
      case CallerOp::kWriteAllocIdle:
        break;
    }
  }
  st.Event(thread_, [&] {
    std::string s = absl::StrFormat("  under exp_lock: %s%s -> %d", CallerOpName(e.op),
                                    q >= 0 ? absl::StrFormat("(qp#%d)", q) : std::string(),
                                    e.ret);
    if (compared_ret) s += absl::StrFormat(" (oracle %d)", oracle_ret);
    return s;
  });
  const auto where = [&] {
    return absl::StrFormat("[t%d] op #%u %s, section of %s", thread_, me.op_index,
                           DescribeOp(st.p->format, st.p->ops[me.op_index]), CallerOpName(e.op));
  };
  if (compared_ret && oracle_ret != e.ret) {
    st.SetFail("oracle", absl::StrFormat("%s: model returned %d, oracle %d", where(), e.ret,
                                         oracle_ret),
               "");
  }
  CheckOptions co;
  co.harness_reserved_flows = st.bare_mask;
  st.JudgeInvariants(CheckInvariants(*rcd, st.qps, co), where);
  if (st.in_sync && st.r->ok && me.cls != Cls::kPostSection) st.CompareState(rcd, where);
}

}  // namespace sched_exec
}  // namespace fuzz
}  // namespace flowcheck
