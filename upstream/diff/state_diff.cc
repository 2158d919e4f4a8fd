// upstream/diff/state_diff.cc: see state_diff.h.
#include "upstream/diff/state_diff.h"

#include <algorithm>

#include "common/strings.h"
#include "lockcheck/spinlock.h"

namespace flowcheck {
namespace diff {
namespace {

// s_flags at rest: no other thread runs, so no s_lock is needed (as
// core/model_view.h's WaitTidSpaceFlag reads it).
uint32_t SFlagsAtRest(const rvt_qp* qp) ABSL_NO_THREAD_SAFETY_ANALYSIS { return qp->s_flags; }

class Differ {
 public:
  explicit Differ(std::vector<std::string>* out) : out_(out) {}
  template <typename T>
  void Field(const std::string& name, T kernel, T core, bool hex = false) {
    if (kernel == core) return;
    out_->push_back(
        hex ? flowcheck::StrFormat("differential: %s: kernel 0x%" PRIx64 ", core 0x%" PRIx64,
                                   name.c_str(), static_cast<uint64_t>(kernel),
                                   static_cast<uint64_t>(core))
            : flowcheck::StrFormat("differential: %s: kernel %" PRId64 ", core %" PRId64,
                                   name.c_str(), static_cast<int64_t>(kernel),
                                   static_cast<int64_t>(core)));
  }
  void Line(std::string s) { out_->push_back("differential: " + std::move(s)); }

 private:
  std::vector<std::string>* out_;
};

std::string Members(const oracle::StateSnapshot::Queue& q) {
  std::string s = "[";
  const uint32_t n = std::min<uint32_t>(q.length, oracle::kSnapshotMaxQps + 1);
  for (uint32_t i = 0; i < n; ++i) {
    s += flowcheck::StrFormat("%sqp#%d", i ? ", " : "", q.members[i]);
  }
  return s + "]";
}

std::string Work(const oracle::StateSnapshot& s) {
  std::string out = "[";
  const uint32_t n = std::min<uint32_t>(s.num_work, oracle::kSnapshotMaxWork);
  for (uint32_t i = 0; i < n; ++i) {
    out += flowcheck::StrFormat("%s%s(qp#%d)", i ? ", " : "",
                                s.work[i].kind == static_cast<uint32_t>(oracle::WorkKind::kTrigger)
                                    ? "trigger_work"
                                    : "send_work",
                                s.work[i].qp);
  }
  return out + "]";
}

}  // namespace

void ReadWorld(hfi1_ctxtdata* rcd, absl::Span<rvt_qp* const> qps, const workqueue_struct& wq,
               WorldState* out) {
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  out->fits = oracle::SnapshotModel(*rcd, qps, wq, &out->snapshot);
  out->audit = rcd->audit;
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  for (size_t i = 0; i < qps.size() && i < static_cast<size_t>(oracle::kSnapshotMaxQps); ++i) {
    out->s_flags[i] = SFlagsAtRest(qps[i]);
  }
}

bool SameWorld(const WorldState& a, const WorldState& b) {
  if (!a.fits || !b.fits || !oracle::SameState(a.snapshot, b.snapshot)) return false;
  for (uint32_t i = 0; i < a.snapshot.num_qps; ++i) {
    if (a.s_flags[i] != b.s_flags[i]) return false;
  }
  const hfi1_flow_audit& x = a.audit;
  const hfi1_flow_audit& y = b.audit;
  for (int f = 0; f < RXE_NUM_TID_FLOWS; ++f) {
    if (x.clear[f].clears != y.clear[f].clears || x.clear[f].old_gen != y.clear[f].old_gen ||
        x.clear[f].new_gen != y.clear[f].new_gen) {
      return false;
    }
  }
  return x.grants == y.grants && x.out_of_order_grants == y.out_of_order_grants &&
         x.mischarged_removals == y.mischarged_removals &&
         x.flow_queue_drift == y.flow_queue_drift && x.rarr_queue_drift == y.rarr_queue_drift;
}

void DescribeDifferences(const WorldState& kernel, const WorldState& core,
                         std::vector<std::string>* out) {
  Differ d(out);
  if (!kernel.fits || !core.fits) {
    d.Line(flowcheck::StrFormat("a world's state does not fit a snapshot (kernel %s, core %s)",
                                kernel.fits ? "fits" : "does not",
                                core.fits ? "fits" : "does not"));
    return;
  }
  const oracle::StateSnapshot& k = kernel.snapshot;
  const oracle::StateSnapshot& c = core.snapshot;
  d.Field("flow_mask", k.flow_mask, c.flow_mask, true);
  d.Field("n_tidwait", k.n_tidwait, c.n_tidwait);
  for (int f = 0; f < oracle::kNumFlows; ++f) {
    d.Field(flowcheck::StrFormat("flow %d: generation", f), k.generation[f], c.generation[f], true);
    d.Field(flowcheck::StrFormat("flow %d: RcvTIDFlowTable", f), k.reg[f], c.reg[f], true);
  }
  d.Field("number of QPs", k.num_qps, c.num_qps);
  const uint32_t n = std::min<uint32_t>(std::min(k.num_qps, c.num_qps), oracle::kSnapshotMaxQps);
  for (uint32_t i = 0; i < n; ++i) {
    const oracle::StateSnapshot::Qp& a = k.qp[i];
    const oracle::StateSnapshot::Qp& b = c.qp[i];
    const std::string q = flowcheck::StrFormat("qp#%d ", i);
    d.Field(q + "flow_state.index", static_cast<int32_t>(a.flow), static_cast<int32_t>(b.flow));
    d.Field(q + "flow_state.last_index", static_cast<int32_t>(a.last),
            static_cast<int32_t>(b.last));
    d.Field(q + "flow_state.generation", a.generation, b.generation, true);
    d.Field(q + "flow_state.psn", a.psn, b.psn, true);
    d.Field(q + "s_flags", kernel.s_flags[i], core.s_flags[i], true);
    d.Field(q + "on queue (0 none, 1 flow, 2 rarr)", a.on, b.on);
    d.Field(q + "tid_enqueue", a.tid_enqueue, b.tid_enqueue);
    d.Field(q + "refcount", static_cast<int32_t>(a.refs), static_cast<int32_t>(b.refs));
    d.Field(q + "trigger_work pending", a.trigger_pending, b.trigger_pending);
    d.Field(q + "send work pending", a.send_pending, b.send_pending);
    d.Field(q + "resync", a.resync, b.resync);
    d.Field(q + "wants_flow", a.wants_flow, b.wants_flow);
    d.Field(q + "send engine runs", a.send_engine_runs, b.send_engine_runs);
    d.Field(q + "flows granted", a.flows_granted, b.flows_granted);
  }
  static const char* const kQueue[2] = {"flow_queue", "rarr_queue"};
  for (int q = 0; q < 2; ++q) {
    const std::string name = kQueue[q];
    d.Field(name + ".enqueue", k.queue[q].enqueue, c.queue[q].enqueue);
    d.Field(name + ".dequeue", k.queue[q].dequeue, c.queue[q].dequeue);
    const std::string km = Members(k.queue[q]), cm = Members(c.queue[q]);
    if (km != cm)
      d.Line(flowcheck::StrFormat("%s members: kernel %s, core %s", name.c_str(), km.c_str(),
                                  cm.c_str()));
  }
  const std::string kw = Work(k), cw = Work(c);
  if (kw != cw)
    d.Line(flowcheck::StrFormat("pending work: kernel %s, core %s", kw.c_str(), cw.c_str()));

  const hfi1_flow_audit& ka = kernel.audit;
  const hfi1_flow_audit& ca = core.audit;
  d.Field("audit: grants", ka.grants, ca.grants);
  d.Field("audit: out-of-order grants", ka.out_of_order_grants, ca.out_of_order_grants);
  for (int f = 0; f < oracle::kNumFlows; ++f) {
    const std::string a = flowcheck::StrFormat("audit: flow %d clears", f);
    d.Field(a, ka.clear[f].clears, ca.clear[f].clears);
    d.Field(a + ": last old generation", ka.clear[f].old_gen, ca.clear[f].old_gen, true);
    d.Field(a + ": last new generation", ka.clear[f].new_gen, ca.clear[f].new_gen, true);
  }
  d.Field("audit: mischarged removals", ka.mischarged_removals, ca.mischarged_removals);
  d.Field("audit: flow_queue drift", ka.flow_queue_drift, ca.flow_queue_drift);
  d.Field("audit: rarr_queue drift", ka.rarr_queue_drift, ca.rarr_queue_drift);
}

}  // namespace diff
}  // namespace flowcheck
