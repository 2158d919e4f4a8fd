// core/oracle/compare.h: compares the model's full flow-layer state with a
// FlowOracle and describes every difference, e.g.
//   "flow 3: reserved: model yes, oracle no"
//   "qp 2 (#1): flow_state.index: model 32, oracle 5"
//   "flow_queue: members: model [qp 2, qp 4], oracle [qp 4, qp 2]"
// Compared: each flow's bit, generation and register; bits above 31; each QP's
// flow_state, HFI1_S_WAIT_TID_SPACE, queue membership, tid_enqueue, refcount,
// both work items' PENDING bits, resync and the request-layer model; both
// queues' members and counters; the work queue's pending items in order;
// n_tidwait.
//
// Contract: the model is at rest (single-threaded use: no work item running,
// no other thread in flow-layer code) and the caller holds rcd.exp_lock (the
// comparison reads s_lock-protected fields too, which is safe only at rest).
// `qps[i]` is the model QP the oracle calls QP i.
#ifndef FLOWCHECK_CORE_ORACLE_COMPARE_H_
#define FLOWCHECK_CORE_ORACLE_COMPARE_H_

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/types/span.h"
#include "core/hfi1.h"
#include "core/model_view.h"
#include "core/oracle/flow_oracle.h"
#include "core/qp.h"
#include "core/workqueue.h"

namespace flowcheck {
namespace oracle {

std::vector<std::string> CompareWithModel(const FlowOracle& oracle,
                                          const hfi1_ctxtdata& rcd,
                                          absl::Span<rvt_qp* const> qps,
                                          const workqueue_struct& wq)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd.exp_lock);

// The list a model QP is on (core/model_view.h) as the oracle names it.
inline Queue AsOracleQueue(WaitQueue q) {
  switch (q) {
    case WaitQueue::kNone: return Queue::kNone;
    case WaitQueue::kFlow: return Queue::kFlow;
    case WaitQueue::kRarr: return Queue::kRarr;
  }
  return Queue::kNone;
}

}  // namespace oracle
}  // namespace flowcheck

#endif  // FLOWCHECK_CORE_ORACLE_COMPARE_H_
