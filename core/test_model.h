// core/test_model.h: testonly. One device, one kernel context, N QPs and a
// work queue that only the test drains: the fixture of core's unit tests.
// All accessors take the locks they need and must be called with none held.
#ifndef FLOWCHECK_CORE_TEST_MODEL_H_
#define FLOWCHECK_CORE_TEST_MODEL_H_

#include <memory>
#include <vector>

#include "core/callers.h"
#include "core/hfi1.h"
#include "core/invariants.h"
#include "core/qp.h"
#include "core/tid_rdma.h"
#include "core/workqueue.h"

namespace flowcheck {
namespace testing {

class TestModel {
 public:
  // QP i has qpn i + 1 and lives on context 0 (the only one).
  explicit TestModel(int num_qps, u64 seed = 1);
  ~TestModel();  // tears the QPs down (and checks nothing)

  rvt_qp* qp(int i) const { return qps_[i]; }
  hfi1_qp_priv* priv(int i) const { return qps_[i]->priv; }
  const std::vector<rvt_qp*>& qps() const { return qps_; }
  hfi1_ctxtdata* rcd() const { return rcd_; }
  hfi1_devdata* dd() const { return dd_.get(); }
  workqueue_struct& wq() { return wq_; }

  // Locked snapshots.
  unsigned long flow_mask();
  u32 flow_generation(int flow);
  u64 flow_register(int flow) { return rcd_->rcv_tid_flow_table[flow].load(); }
  std::vector<u32> flow_queue_qpns();   // head first
  std::vector<u32> rarr_queue_qpns();
  struct Counters {
    u32 enqueue, dequeue;
  };
  Counters flow_counters();  // flow_queue.enqueue/dequeue
  Counters rarr_counters();
  u32 s_flags(int i);
  bool waiting(int i) { return (s_flags(i) & HFI1_S_WAIT_TID_SPACE) != 0; }
  int refs(int i) const { return qps_[i]->refcount.load(); }
  u32 position(int i, bool flow_queue = true);  // position_in_queue, under exp_lock
  // CheckInvariants at rest (the test's thread is the only one).
  std::vector<InvariantViolation> Check(unsigned long harness_reserved_flows = 0);
  // Sets a flow's generation (a test-only shortcut for "after many releases").
  void set_flow_generation(int flow, u32 gen);

 private:
  workqueue_struct wq_;
  std::unique_ptr<hfi1_devdata> dd_;
  hfi1_ctxtdata* rcd_;
  std::vector<rvt_qp*> qps_;
};

// The ids of `v`, e.g. {"F1", "W5"}; for EXPECT_THAT(..., ElementsAre(...)).
std::vector<std::string> Ids(const std::vector<InvariantViolation>& v);

}  // namespace testing
}  // namespace flowcheck

#endif  // FLOWCHECK_CORE_TEST_MODEL_H_
