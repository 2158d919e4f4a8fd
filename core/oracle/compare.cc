// core/oracle/compare.cc: see compare.h.
#include "core/oracle/compare.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "common/strings.h"
#include "lockcheck/lockdep.h"

namespace flowcheck {
namespace oracle {
namespace {

// Formats a difference only when there is one: the comparison runs after
// every fuzz step, so the equal case must not allocate. `name` is a callable
// returning the field's name.
class Differ {
 public:
  explicit Differ(std::vector<std::string>* out) : out_(out) {}
  template <typename T, typename NameFn>
  void Check(NameFn name, const T& model, const T& oracle) {
    if (!(model == oracle)) {
      out_->push_back(flowcheck::StrCat(name(), ": model ", model, ", oracle ", oracle));
    }
  }
  template <typename NameFn>
  void CheckYesNo(NameFn name, bool model, bool oracle) {
    if (model != oracle) {
      out_->push_back(flowcheck::StrFormat("%s: model %s, oracle %s", name().c_str(), YesNo(model),
                                           YesNo(oracle)));
    }
  }
  void Add(std::string diff) { out_->push_back(std::move(diff)); }

 private:
  static const char* YesNo(bool b) { return b ? "yes" : "no"; }
  std::vector<std::string>* out_;
};

std::string QpName(absl::Span<rvt_qp* const> qps, int i) {
  if (i < 0) return "an unknown QP";
  return flowcheck::StrFormat("qp %u", qps[i]->qp_num);
}

// The model's queue as QP indices (QueueMembers: -1 for a node that is no
// QP's).
using Members = absl::InlinedVector<int, 16>;
Members ModelMembers(const tid_queue& q, const QpNodes& nodes) {
  Members m;
  QueueMembers(q, nodes, [&m](int i) { m.push_back(i); });
  return m;
}

std::string List(absl::Span<rvt_qp* const> qps, const Members& members) {
  std::string s = "[";
  for (size_t i = 0; i < members.size(); ++i) {
    s += (i ? ", " : "") + QpName(qps, members[i]);
  }
  return s + "]";
}

// A pending work item as (QP index, kind); QP -1 for an item of no listed QP.
struct WorkId {
  int qp;
  WorkKind kind;
  bool operator==(const WorkId& o) const { return qp == o.qp && kind == o.kind; }
};

std::string WorkList(absl::Span<rvt_qp* const> qps, const std::vector<WorkId>& items) {
  std::string s = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    s += i ? ", " : "";
    s += items[i].qp < 0 ? std::string("an unknown item")
                         : QpName(qps, items[i].qp) + " " + WorkKindName(items[i].kind);
  }
  return s + "]";
}

}  // namespace

std::vector<std::string> CompareWithModel(const FlowOracle& o, const hfi1_ctxtdata& rcd,
                                          absl::Span<rvt_qp* const> qps,
                                          const workqueue_struct& wq) {
  lockdep_assert_held(&rcd.exp_lock);
  std::vector<std::string> out;
  Differ d(&out);
  if (static_cast<int>(qps.size()) != o.num_qps()) {
    out.push_back(flowcheck::StrFormat("model has %zu QPs, oracle %d", qps.size(), o.num_qps()));
    return out;
  }

  // Flows. The owners of flow f differ iff some QP is f's owner on one side
  // only: mark such flows in one pass over the QPs, describe them below.
  uint64_t owner_differs = 0;
  for (size_t i = 0; i < qps.size(); ++i) {
    const int m = qps[i]->priv->flow_state.index, q = o.qp(static_cast<int>(i)).flow;
    if (m != q) {
      if (m >= 0 && m < kNumFlows) owner_differs |= 1ull << m;
      if (q >= 0 && q < kNumFlows) owner_differs |= 1ull << q;
    }
  }
  d.Check([] { return "flow_mask bits 32..63"; }, rcd.flow_mask >> kNumFlows, 0UL);
  for (int f = 0; f < kNumFlows; ++f) {
    auto name = [f] { return flowcheck::StrFormat("flow %d", f); };
    d.CheckYesNo([&] { return name() + ": reserved"; }, (rcd.flow_mask >> f) & 1, o.reserved(f));
    if ((owner_differs >> f) & 1) {
      std::vector<std::string> model_owners, oracle_owners;
      for (size_t i = 0; i < qps.size(); ++i) {
        if (qps[i]->priv->flow_state.index == f) model_owners.push_back(QpName(qps, i));
        if (o.qp(i).flow == f) oracle_owners.push_back(QpName(qps, i));
      }
      if (model_owners.empty()) model_owners.push_back("none");
      if (oracle_owners.empty()) oracle_owners.push_back("none");
      d.Add(flowcheck::StrFormat("%s: owner: model %s, oracle %s", name().c_str(),
                                 flowcheck::StrJoin(model_owners, " and ").c_str(),
                                 flowcheck::StrJoin(oracle_owners, " and ").c_str()));
    }
    d.Check([&] { return name() + ": generation"; }, rcd.flows[f].generation, o.generation(f));
    d.Check([&] { return name() + ": register"; },
            static_cast<uint64_t>(rcd.rcv_tid_flow_table[f].load(std::memory_order_relaxed)),
            o.reg(f));
  }

  // QPs.
  const QpNodes nodes(qps);
  absl::InlinedVector<WaitQueue, 16> model_on(qps.size());
  QueueOfEach(rcd, nodes, model_on.data());
  for (size_t i = 0; i < qps.size(); ++i) {
    const rvt_qp* qp = qps[i];
    const hfi1_qp_priv* p = qp->priv;
    const QpState& q = o.qp(static_cast<int>(i));
    auto name = [&qps, i] {
      return QpName(qps, static_cast<int>(i)) + flowcheck::StrFormat(" (#%zu)", i);
    };
    auto field = [&name](const char* f) { return [&name, f] { return name() + ": " + f; }; };
    d.Check(field("flow_state.index"), static_cast<int>(p->flow_state.index), q.flow);
    d.Check(field("flow_state.last_index"), static_cast<int>(p->flow_state.last_index), q.last);
    d.Check(field("flow_state.generation"), p->flow_state.generation, q.generation);
    d.Check(field("flow_state.psn"), p->flow_state.psn, q.psn);
    d.CheckYesNo(field("HFI1_S_WAIT_TID_SPACE"), WaitTidSpaceFlag(qp), q.waiting);
    const Queue on = AsOracleQueue(model_on[i]);
    if (on != q.on) {
      d.Add(flowcheck::StrFormat("%s: queued on: model %s, oracle %s", name().c_str(),
                                 QueueName(on), QueueName(q.on)));
    }
    d.Check(field("tid_enqueue"), p->tid_enqueue, q.tid_enqueue);
    d.Check(field("refcount"), qp->refcount.load(std::memory_order_acquire), q.refs);
    d.CheckYesNo(field("trigger_work pending"), work_pending(&p->tid_rdma.trigger_work),
                 q.trigger_pending);
    d.CheckYesNo(field("send work pending"), work_pending(&p->s_iowait.iowork), q.send_pending);
    d.CheckYesNo(field("resync"), p->resync, q.resync);
    d.CheckYesNo(field("request wants_flow"), p->model_req.wants_flow, q.wants_flow);
    d.Check(field("send engine runs"), p->model_req.send_engine_runs, q.send_engine_runs);
    d.Check(field("flows granted by the send engine"), p->model_req.flows_granted,
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
    const Members model = ModelMembers(q.model, nodes);
    const Members oracle(q.oracle.members.begin(), q.oracle.members.end());
    if (model != oracle) {
      d.Add(flowcheck::StrFormat("%s: members: model %s, oracle %s", q.name,
                                 List(qps, model).c_str(), List(qps, oracle).c_str()));
    }
    d.Check([&q] { return std::string(q.name) + ": enqueue"; }, q.model.enqueue,
            q.oracle.enqueue);
    d.Check([&q] { return std::string(q.name) + ": dequeue"; }, q.model.dequeue,
            q.oracle.dequeue);
  }

  // Deferred work, in order (the snapshot allocates: taken only if any).
  if (wq.pending_count() != 0 || !o.work().empty()) {
    std::vector<WorkId> model_work, oracle_work;
    for (const work_struct* w : wq.Pending()) {
      WorkId item{-1, WorkKind::kTrigger};
      for (size_t i = 0; i < qps.size(); ++i) {
        if (w == &qps[i]->priv->tid_rdma.trigger_work) {
          item = {static_cast<int>(i), WorkKind::kTrigger};
        } else if (w == &qps[i]->priv->s_iowait.iowork) {
          item = {static_cast<int>(i), WorkKind::kSend};
        }
      }
      model_work.push_back(item);
    }
    for (const WorkItem& w : o.work()) oracle_work.push_back({w.qp, w.kind});
    if (model_work != oracle_work) {
      d.Add(flowcheck::StrFormat("pending work: model %s, oracle %s",
                                 WorkList(qps, model_work).c_str(),
                                 WorkList(qps, oracle_work).c_str()));
    }
  }
  d.Check([] { return "n_tidwait"; }, rcd.dd->verbs_dev.n_tidwait, o.n_tidwait());
  return out;
}

}  // namespace oracle
}  // namespace flowcheck
