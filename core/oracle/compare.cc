// core/oracle/compare.cc: see compare.h.
#include "core/oracle/compare.h"

#include <cstdint>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lockcheck/lockdep.h"

namespace flowcheck {
namespace oracle {
namespace {

constexpr uint32_t kWaitTidSpace = 0x10000000;  // HFI1_S_WAIT_TID_SPACE

class Differ {
 public:
  explicit Differ(std::vector<std::string>* out) : out_(out) {}
  template <typename T>
  void Check(const std::string& what, const T& model, const T& oracle) {
    if (!(model == oracle)) {
      out_->push_back(absl::StrFormat("%s: model %d, oracle %d", what, model, oracle));
    }
  }
  void CheckStr(const std::string& what, const std::string& model, const std::string& oracle) {
    if (model != oracle) {
      out_->push_back(absl::StrFormat("%s: model %s, oracle %s", what, model, oracle));
    }
  }

 private:
  std::vector<std::string>* out_;
};

std::string YesNo(bool b) { return b ? "yes" : "no"; }

// Fields guarded by s_lock: read only at rest (the contract).
uint32_t SFlags(const rvt_qp* qp) ABSL_NO_THREAD_SAFETY_ANALYSIS { return qp->s_flags; }

std::string QpName(absl::Span<rvt_qp* const> qps, int i) {
  if (i < 0) return "an unknown QP";
  return absl::StrFormat("qp %u", qps[i]->qp_num);
}

// The model's queue as QP names, walking at most qps.size()+1 nodes.
std::vector<std::string> ModelMembers(const tid_queue& q, absl::Span<rvt_qp* const> qps) {
  std::vector<std::string> names;
  const list_head* head = &q.queue_head;
  for (const list_head* p = head->next; p != head && names.size() <= qps.size(); p = p->next) {
    int found = -1;
    for (size_t i = 0; i < qps.size(); ++i) {
      if (&qps[i]->priv->tid_wait == p) found = static_cast<int>(i);
    }
    names.push_back(QpName(qps, found));
    if (found < 0) break;
  }
  return names;
}

std::vector<std::string> OracleMembers(const QueueState& q, absl::Span<rvt_qp* const> qps) {
  std::vector<std::string> names;
  for (int i : q.members) names.push_back(QpName(qps, i));
  return names;
}

std::string List(const std::vector<std::string>& v) { return "[" + absl::StrJoin(v, ", ") + "]"; }

// Which queue a model QP is on, found by walking both lists.
Queue ModelQueueOf(const hfi1_ctxtdata& rcd, const rvt_qp* qp)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {  // caller holds exp_lock (CompareWithModel)
  const tid_queue* queues[2] = {&rcd.flow_queue, &rcd.rarr_queue};
  for (int k = 0; k < 2; ++k) {
    const list_head* head = &queues[k]->queue_head;
    int steps = 0;
    for (const list_head* p = head->next; p != head && steps < 4096; p = p->next, ++steps) {
      if (p == &qp->priv->tid_wait) return k == 0 ? Queue::kFlow : Queue::kRarr;
    }
  }
  return Queue::kNone;
}

}  // namespace

std::vector<std::string> CompareWithModel(const FlowOracle& o, const hfi1_ctxtdata& rcd,
                                          absl::Span<rvt_qp* const> qps,
                                          const workqueue_struct& wq) {
  lockdep_assert_held(&rcd.exp_lock);
  std::vector<std::string> out;
  Differ d(&out);
  if (static_cast<int>(qps.size()) != o.num_qps()) {
    out.push_back(absl::StrFormat("model has %u QPs, oracle %d", qps.size(), o.num_qps()));
    return out;
  }

  // Flows.
  d.Check<unsigned long>("flow_mask bits 32..63", rcd.flow_mask >> kNumFlows, 0);
  for (int f = 0; f < kNumFlows; ++f) {
    const std::string name = absl::StrFormat("flow %d", f);
    d.CheckStr(name + ": reserved", YesNo((rcd.flow_mask >> f) & 1), YesNo(o.reserved(f)));
    std::vector<std::string> model_owners, oracle_owners;
    for (size_t i = 0; i < qps.size(); ++i) {
      if (qps[i]->priv->flow_state.index == f) model_owners.push_back(QpName(qps, i));
      if (o.qp(i).flow == f) oracle_owners.push_back(QpName(qps, i));
    }
    if (model_owners.empty()) model_owners.push_back("none");
    if (oracle_owners.empty()) oracle_owners.push_back("none");
    d.CheckStr(name + ": owner", absl::StrJoin(model_owners, " and "),
               absl::StrJoin(oracle_owners, " and "));
    d.Check<uint32_t>(name + ": generation", rcd.flows[f].generation, o.generation(f));
    d.Check<uint64_t>(name + ": register",
                      rcd.rcv_tid_flow_table[f].load(std::memory_order_relaxed), o.reg(f));
  }

  // QPs.
  for (size_t i = 0; i < qps.size(); ++i) {
    const rvt_qp* qp = qps[i];
    const hfi1_qp_priv* p = qp->priv;
    const QpState& q = o.qp(static_cast<int>(i));
    const std::string name = QpName(qps, static_cast<int>(i)) + absl::StrFormat(" (#%u)", i);
    d.Check<int>(name + ": flow_state.index", p->flow_state.index, q.flow);
    d.Check<int>(name + ": flow_state.last_index", p->flow_state.last_index, q.last);
    d.Check<uint32_t>(name + ": flow_state.generation", p->flow_state.generation, q.generation);
    d.Check<uint32_t>(name + ": flow_state.psn", p->flow_state.psn, q.psn);
    d.CheckStr(name + ": HFI1_S_WAIT_TID_SPACE", YesNo(SFlags(qp) & kWaitTidSpace),
               YesNo(q.waiting));
    d.CheckStr(name + ": queued on", QueueName(ModelQueueOf(rcd, qp)), QueueName(q.on));
    d.Check<uint32_t>(name + ": tid_enqueue", p->tid_enqueue, q.tid_enqueue);
    d.Check<int>(name + ": refcount", qp->refcount.load(std::memory_order_acquire), q.refs);
    d.CheckStr(name + ": trigger_work pending", YesNo(work_pending(&p->tid_rdma.trigger_work)),
               YesNo(q.trigger_pending));
    d.CheckStr(name + ": send work pending", YesNo(work_pending(&p->s_iowait.iowork)),
               YesNo(q.send_pending));
    d.CheckStr(name + ": resync", YesNo(p->resync), YesNo(q.resync));
    d.CheckStr(name + ": request wants_flow", YesNo(p->model_req.wants_flow),
               YesNo(q.wants_flow));
    d.Check<uint32_t>(name + ": send engine runs", p->model_req.send_engine_runs,
                      q.send_engine_runs);
    d.Check<uint32_t>(name + ": flows granted by the send engine", p->model_req.flows_granted,
                      q.flows_granted);
  }

  // Queues.
  struct {
    const char* name;
    const tid_queue& model;
    const QueueState& oracle;
  } queues[2] = {{"flow_queue", rcd.flow_queue, o.flow_queue()},
                 {"rarr_queue", rcd.rarr_queue, o.rarr_queue()}};
  for (const auto& q : queues) {
    d.CheckStr(std::string(q.name) + ": members", List(ModelMembers(q.model, qps)),
               List(OracleMembers(q.oracle, qps)));
    d.Check<uint32_t>(std::string(q.name) + ": enqueue", q.model.enqueue, q.oracle.enqueue);
    d.Check<uint32_t>(std::string(q.name) + ": dequeue", q.model.dequeue, q.oracle.dequeue);
  }

  // Deferred work, in order.
  std::vector<std::string> model_work, oracle_work;
  for (const work_struct* w : wq.Pending()) {
    std::string item = "an unknown item";
    for (size_t i = 0; i < qps.size(); ++i) {
      if (w == &qps[i]->priv->tid_rdma.trigger_work) {
        item = QpName(qps, i) + " " + WorkKindName(WorkKind::kTrigger);
      } else if (w == &qps[i]->priv->s_iowait.iowork) {
        item = QpName(qps, i) + " " + WorkKindName(WorkKind::kSend);
      }
    }
    model_work.push_back(item);
  }
  for (const WorkItem& w : o.work()) {
    oracle_work.push_back(QpName(qps, w.qp) + " " + WorkKindName(w.kind));
  }
  d.CheckStr("pending work", List(model_work), List(oracle_work));
  d.Check<uint64_t>("n_tidwait", rcd.dd->verbs_dev.n_tidwait, o.n_tidwait());
  return out;
}

}  // namespace oracle
}  // namespace flowcheck
