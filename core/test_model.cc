// core/test_model.cc: see test_model.h.
#include "core/test_model.h"

#include <cstdio>
#include <cstdlib>

namespace flowcheck {
namespace testing {

TestModel::TestModel(int num_qps, u64 seed) : wq_("test") {
  dd_ = hfi1_model_alloc_devdata(1, &wq_, seed);
  rcd_ = dd_->rcd[0].get();
  for (int i = 0; i < num_qps; ++i) {
    qps_.push_back(hfi1_model_create_qp(dd_.get(), static_cast<u32>(i + 1)));
  }
}

TestModel::~TestModel() {
  for (rvt_qp* qp : qps_) hfi1_model_teardown_qp(qp);
  wq_.Stop();
  for (rvt_qp* qp : qps_) hfi1_model_free_qp(qp);
}

unsigned long TestModel::flow_mask() {
  unsigned long flags;
  spin_lock_irqsave(&rcd_->exp_lock, flags);
  unsigned long m = rcd_->flow_mask;
  spin_unlock_irqrestore(&rcd_->exp_lock, flags);
  return m;
}

u32 TestModel::flow_generation(int flow) {
  unsigned long flags;
  spin_lock_irqsave(&rcd_->exp_lock, flags);
  u32 g = rcd_->flows[flow].generation;
  spin_unlock_irqrestore(&rcd_->exp_lock, flags);
  return g;
}

void TestModel::set_flow_generation(int flow, u32 gen) {
  unsigned long flags;
  spin_lock_irqsave(&rcd_->exp_lock, flags);
  rcd_->flows[flow].generation = gen;
  spin_unlock_irqrestore(&rcd_->exp_lock, flags);
}

static std::vector<u32> Qpns(const tid_queue& q) {
  std::vector<u32> out;
  const list_head* head = &q.queue_head;
  for (const list_head* p = head->next; p != head && out.size() < 1024; p = p->next) {
    out.push_back(container_of(const_cast<list_head*>(p), hfi1_qp_priv, tid_wait)->owner->qp_num);
  }
  return out;
}

std::vector<u32> TestModel::flow_queue_qpns() {
  unsigned long flags;
  spin_lock_irqsave(&rcd_->exp_lock, flags);
  std::vector<u32> v = Qpns(rcd_->flow_queue);
  spin_unlock_irqrestore(&rcd_->exp_lock, flags);
  return v;
}

std::vector<u32> TestModel::rarr_queue_qpns() {
  unsigned long flags;
  spin_lock_irqsave(&rcd_->exp_lock, flags);
  std::vector<u32> v = Qpns(rcd_->rarr_queue);
  spin_unlock_irqrestore(&rcd_->exp_lock, flags);
  return v;
}

TestModel::Counters TestModel::flow_counters() {
  unsigned long flags;
  spin_lock_irqsave(&rcd_->exp_lock, flags);
  Counters c{rcd_->flow_queue.enqueue, rcd_->flow_queue.dequeue};
  spin_unlock_irqrestore(&rcd_->exp_lock, flags);
  return c;
}

TestModel::Counters TestModel::rarr_counters() {
  unsigned long flags;
  spin_lock_irqsave(&rcd_->exp_lock, flags);
  Counters c{rcd_->rarr_queue.enqueue, rcd_->rarr_queue.dequeue};
  spin_unlock_irqrestore(&rcd_->exp_lock, flags);
  return c;
}

u32 TestModel::s_flags(int i) {
  unsigned long flags;
  spin_lock_irqsave(&qps_[i]->s_lock, flags);
  u32 f = qps_[i]->s_flags;
  spin_unlock_irqrestore(&qps_[i]->s_lock, flags);
  return f;
}

u32 TestModel::position(int i, bool flow_queue) {
  unsigned long flags;
  spin_lock_irqsave(&rcd_->exp_lock, flags);
  u32 p = position_in_queue(qps_[i]->priv, flow_queue ? &rcd_->flow_queue : &rcd_->rarr_queue);
  spin_unlock_irqrestore(&rcd_->exp_lock, flags);
  return p;
}

std::vector<InvariantViolation> TestModel::Check(unsigned long harness_reserved_flows) {
  CheckOptions options;
  options.quiescent = true;
  options.harness_reserved_flows = harness_reserved_flows;
  unsigned long flags;
  spin_lock_irqsave(&rcd_->exp_lock, flags);
  std::vector<InvariantViolation> v = CheckInvariants(*rcd_, qps_, options);
  const InvariantVerdict verdict = CheckInvariantsVerdict(*rcd_, qps_, options);
  spin_unlock_irqrestore(&rcd_->exp_lock, flags);
  // Every state a test checks (the invariants tests corrupt one field after
  // another) also proves the fast verdict equal to the full list's.
  if (!(verdict == VerdictOf(v))) {
    std::fprintf(stderr,
                 "TestModel::Check: CheckInvariantsVerdict says violation=%d divergence=%d, "
                 "CheckInvariants reported:\n%s",
                 verdict.violation, verdict.upstream_divergence, FormatViolations(v).c_str());
    std::abort();
  }
  return v;
}

std::vector<std::string> Ids(const std::vector<InvariantViolation>& v) {
  std::vector<std::string> ids;
  for (const InvariantViolation& x : v) ids.push_back(x.id);
  return ids;
}

}  // namespace testing
}  // namespace flowcheck
