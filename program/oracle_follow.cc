// program/oracle_follow.cc: see oracle_follow.h.
#include "program/oracle_follow.h"

#include <array>
#include <cerrno>

#include "common/sanitizers.h"
#include "common/strings.h"
#include "core/oracle/compare.h"
#include "core/oracle/snapshot.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/logical_thread.h"

namespace flowcheck {
namespace program {
namespace {

// The oracle's initial state is the context's at rest: the flows'
// generations, and its bare flows as the harness's (ReserveFlow(i) takes
// flow i when it is free).
oracle::FlowOracle OracleOf(const ContextState& ctx) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  std::array<uint32_t, oracle::kNumFlows> gens;
  for (int f = 0; f < oracle::kNumFlows; ++f) gens[f] = ctx.rcd->flows[f].generation;
  std::vector<uint32_t> qpns;
  for (const rvt_qp* qp : ctx.qps) qpns.push_back(qp->qp_num);
  oracle::FlowOracle o(gens, qpns);
  for (int f = 0; f < oracle::kNumFlows; ++f) {
    if (ctx.bare_mask & (1ul << f)) o.ReserveFlow(f);
  }
  return o;
}

const char* DangerName(unsigned order, bool work) {
  if (work) return "a work item, which no observer sees";
  if (order & kBefore) return "its flow-layer section may have run, its observed one has not";
  return "it wakes a waiter after its observed section";
}

}  // namespace

OracleFollower::OracleFollower(const ContextState& ctx, const workqueue_struct& wq, int threads,
                               bool flush_handoff)
    : ctx_(ctx), wq_(wq), flush_handoff_(flush_handoff), oracle_(OracleOf(ctx)), th_(threads) {}

int OracleFollower::QpIndex(const rvt_qp* qp) const {
  for (size_t i = 0; i < ctx_.qps.size(); ++i) {
    if (ctx_.qps[i] == qp) return static_cast<int>(i);
  }
  return -1;
}

std::string OracleFollower::What(const Thread& th) {
  if (th.work || th.name == nullptr) return "a work item";
  return *th.name + " " + FormatOps({th.op});
}

void OracleFollower::BeginOp(int t, const std::string* name, const ListedOp& op,
                             rvt_qp* span_qp) {
  TsanIgnoreAccesses hide;
  Thread& me = th_[t];
  me = Thread{};
  me.busy = true;
  me.order = kListedOpRows[op.kind].order;
  me.call = kListedOpRows[op.kind].call;
  me.span_qp = span_qp;
  me.name = name;
  me.op = op;
  me.seq_at_start = ++seq_;
}

void OracleFollower::EndOp(int t) {
  TsanIgnoreAccesses hide;
  th_[t].busy = false;
  ++seq_;
}

void OracleFollower::BeginWork(int t) {
  TsanIgnoreAccesses hide;
  Thread& me = th_[t];
  me = Thread{};
  me.busy = true;
  me.work = true;
  for (size_t o = 0; o < th_.size(); ++o) {
    if (static_cast<int>(o) != t && th_[o].busy) me.others_busy_at_start = true;
  }
  me.seq_at_start = ++seq_;
}

std::string OracleFollower::EndWork(int t, bool ran) {
  TsanIgnoreAccesses hide;
  Thread& me = th_[t];
  me.busy = false;
  // No item was pending: the worker changed nothing.
  if (!ran) return "";
  const bool alone = me.seq_at_start == seq_ && !me.others_busy_at_start;
  ++seq_;
  if (!following_) return "";
  if (!alone) {
    Stop("a work item ran while other ops ran: the order of their effects is not known");
    return "";
  }
  if (!oracle_.RunOneWork()) return "the model ran a work item, the oracle had none pending";
  return "";
}

bool OracleFollower::OthersDangerous(int me, std::string* why) const {
  for (size_t t = 0; t < th_.size(); ++t) {
    const Thread& o = th_[t];
    if (static_cast<int>(t) == me || !o.busy) continue;
    const bool begun = o.span_qp == nullptr || lockcheck::ScheduleLockIsHeld(&o.span_qp->s_lock);
    const bool danger = o.work || ((o.order & kBefore) && !o.observed && begun) ||
                        ((o.order & kAfter) && o.observed);
    if (danger) {
      *why = flowcheck::StrFormat("logical thread %zu is inside %s (%s)", t, What(o).c_str(),
                                  DangerName(o.order, o.work));
      return true;
    }
  }
  return false;
}

void OracleFollower::Stop(const std::string& why) {
  if (stopped_.empty()) stopped_ = why;
  following_ = false;
}

bool OracleFollower::Resume(int t) {
  for (size_t o = 0; o < th_.size(); ++o) {
    if (static_cast<int>(o) != t && th_[o].busy) return false;
  }
  oracle::StateSnapshot model, adopted;
  if (!oracle::SnapshotModel(*ctx_.rcd, ctx_.qps, wq_, &model) ||
      !oracle::AdoptSnapshot(model, &oracle_) || !oracle::SnapshotOracle(oracle_, &adopted) ||
      !oracle::SameState(model, adopted)) {
    return false;  // stays stopped: the oracle cannot hold this state
  }
  following_ = true;
  ++resumed_;
  return true;
}

std::string OracleFollower::Compare(absl::FunctionRef<std::string()> where) {
  ++comparisons_;
  const std::vector<std::string> diffs =
      oracle::CompareWithModel(oracle_, *ctx_.rcd, ctx_.qps, wq_);
  if (diffs.empty()) return "";
  std::string s =
      flowcheck::StrFormat("%s: model and oracle differ: %s", where().c_str(), diffs[0].c_str());
  if (diffs.size() > 1) flowcheck::StrAppendFormat(&s, " (and %lu more)", diffs.size() - 1);
  return s;
}

bool OracleFollower::Apply(const CallerEvent& e, int q, bool* compare_ret, int64_t* ret) {
  oracle::FlowOracle& o = oracle_;
  switch (e.op) {
    case CallerOp::kSetupHwFlow:
      *ret = o.SetupHwFlow(q);
      *compare_ret = true;
      // The request layer wants a flow until it has one (OpCheck::Setup).
      o.SetWantsFlow(q, e.ret != 0);
      return true;
    case CallerOp::kClearHwFlow: o.ClearHwFlow(q); return true;
    case CallerOp::kFlushWait: o.FlushWait(q); return true;
    case CallerOp::kGiveUpFlowWait:
      if (e.ret != 0) {  // flushed: caller_give_up_flow_wait's flush and wants_flow
        o.FlushWait(q);
        o.SetWantsFlow(q, false);
        if (flush_handoff_) o.WakeFlowQueueHead();
      }
      return true;
    case CallerOp::kRarrWait: o.RarrWait(q); return true;
    case CallerOp::kRarrGrant:
      *ret = o.RarrGrant(q);
      *compare_ret = true;
      return true;
    case CallerOp::kRarrRelease: o.RarrRelease(q); return true;
    case CallerOp::kResync:
      *ret = o.Resync(q, static_cast<uint32_t>(e.arg)) ? 1 : 0;
      *compare_ret = true;
      return true;
    case CallerOp::kClearResync: o.ClearResync(q); return true;
    case CallerOp::kReserveFlow:
      *ret = o.ReserveFlow(static_cast<int>(e.arg));
      *compare_ret = true;
      return true;
    case CallerOp::kReleaseFlow:
      // The harness's bare release wakes flow_queue's head (bare_ops.cc).
      o.ReleaseFlow(static_cast<int>(e.arg));
      o.WakeFlowQueueHead();
      return true;
    // The RcvArray side, which the oracle does not model, and the READ
    // requester's and its responses' flow changes: only a call that changed
    // nothing is followed (a segment at a sync point's wait or the RDMAR
    // limit; a response with none due).
    case CallerOp::kReadReqSegment: return e.ret == -EBUSY;
    case CallerOp::kReadRespSegment: return e.ret == -EINVAL;
    case CallerOp::kReadReqClearAll:
    case CallerOp::kWriteReqClearAll: return e.arg == 0;
    // The WRITE responder's allocator may set up, free or renew the flow
    // in one call: not followed.
    case CallerOp::kReadReqFlushComplete:
    case CallerOp::kWriteAllocSegment:
    case CallerOp::kWriteDataSegment:
    case CallerOp::kWriteAllocIdle: return false;
  }
  return false;
}

std::string OracleFollower::Observe(int t, const hfi1_ctxtdata& rcd, const CallerEvent& e) {
  TsanIgnoreAccesses hide;
  Thread& me = th_[t];
  if (!me.busy) return "";  // not an op the follower was told of
  if (static_cast<int>(e.op) == me.call) me.observed = true;
  if (!following_) {
    // Take up the model's state where no effect is in flight: this op's
    // last section (its effects done, no wakeup to come), nobody else in an
    // op. From here on the oracle checks what follows.
    if (me.observed && !(me.order & kAfter)) {
      lockdep_assert_held(&ctx_.rcd->exp_lock);  // rcd's, for the analysis
      Resume(t);
    }
    return "";
  }
  std::string why;
  if (OthersDangerous(t, &why)) {
    Stop(why);
    return "";
  }
  const int q = e.qp != nullptr ? QpIndex(e.qp) : -1;
  bool compare_ret = false;
  int64_t oracle_ret = 0;
  if (!Apply(e, q, &compare_ret, &oracle_ret)) {
    Stop(flowcheck::StrFormat("%s: %s changed the RcvArray side, which the oracle does not model",
                              What(me).c_str(), CallerOpName(e.op)));
    return "";
  }
  if (compare_ret && oracle_ret != e.ret) {
    return flowcheck::StrFormat("%s: %s returned %d, the oracle %" PRId64, What(me).c_str(),
                                CallerOpName(e.op), e.ret, oracle_ret);
  }
  // A kAfter op's wakeup is not in the model yet: its state is compared at
  // its end.
  if ((me.order & kAfter) && static_cast<int>(e.op) == me.call) return "";
  lockdep_assert_held(&ctx_.rcd->exp_lock);  // rcd's (OpCheck checked it), for the analysis
  return Compare([&] {
    return flowcheck::StrFormat("%s, section of %s", What(me).c_str(), CallerOpName(e.op));
  });
}

std::string OracleFollower::AtEnd() {
  if (!following_) return "";
  unsigned long flags;
  spin_lock_irqsave(&ctx_.rcd->exp_lock, flags);
  std::string failure;
  {
    TsanIgnoreAccesses hide;
    failure = Compare([] { return std::string("at the end of the execution"); });
  }
  spin_unlock_irqrestore(&ctx_.rcd->exp_lock, flags);
  return failure;
}

}  // namespace program
}  // namespace flowcheck
