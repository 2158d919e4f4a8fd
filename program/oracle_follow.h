// program/oracle_follow.h: internal to the engine. In a controlled execution
// (--sched, one context) the reference model (core/oracle/flow_oracle.h)
// follows the model: each observed call (core/callers.h's observer, under
// exp_lock) is applied to the oracle and its result and the whole flow-layer
// state compared, in the order the schedule ran the observed sections.
//
// Oracle order. The oracle applies an op at once; the model applies a
// caller's effects in one or more critical sections, and the observer runs
// in the last one. The order of the observed sections is the order of the
// effects only while, at a thread's observed section, no OTHER thread is
// inside an op whose effects can already be in the model but not yet in the
// oracle. The op table's `order` column (op_table.h) says where an op's
// effects are:
//   kBefore     its flow-layer function takes exp_lock itself, before the
//               observed section: dangerous until that section, except
//               while the op's QP's s_lock is free (a QP op holds it from
//               before its effect to after its observer; free means the
//               effect has not begun); resync drops it in between: always;
//   kAfter      a wakeup after the observed section (applied to the oracle
//               at the section): dangerous from it to the op's end;
//   kInSection  effect and observer in one section: never dangerous;
//   a work item (a worker's): no observed section; dangerous throughout,
//               applied to the oracle at its end only if no other op began
//               or ended meanwhile.
// Where the rule fails the oracle stops (the invariants go on), and so does
// it at a call the oracle does not model (the RcvArray side: a segment set
// up or freed) unless the call changed nothing. It takes up the model's
// state again at the next op's last section where no other op is in
// flight (Resume), and checks what follows from there. comparisons(),
// stopped() and resumed() say how far it went.
//
// Every method is called by the logical thread named, one at a time under
// the scheduler; the follower's own fields need no lock, and TSan is told
// to ignore the harness's accesses (TsanIgnoreAccesses). Only AtEnd takes a
// lock (on the controller): a lock in a logical thread would add decision
// points, and change every schedule.
#ifndef FLOWCHECK_PROGRAM_ORACLE_FOLLOW_H_
#define FLOWCHECK_PROGRAM_ORACLE_FOLLOW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "core/caller_checks.h"
#include "core/callers.h"
#include "core/oracle/flow_oracle.h"
#include "core/workqueue.h"
#include "program/op_list.h"

namespace flowcheck {
namespace program {

class OracleFollower {
 public:
  // `ctx` at rest (no logical thread started), its bare flows the
  // harness's; `threads` logical threads, numbered 0..threads-1 by the
  // caller; `flush_handoff`: a give-up that flushed wakes flow_queue's head
  // (StressConfig::flush_handoff).
  OracleFollower(const ContextState& ctx, const workqueue_struct& wq, int threads,
                 bool flush_handoff);

  // Thread t (named *name, which outlives the op) begins `op`, on `span_qp`
  // (its QP; nullptr: no s_lock spans it); its row's `order` and `call`
  // (op_table.h) say how its effects order.
  void BeginOp(int t, const std::string* name, const ListedOp& op, rvt_qp* span_qp);
  // Thread t ends it. (A kAfter op's wakeup is compared at the next
  // observed section, or at the end: a comparison needs exp_lock, and taking
  // it here would add decision points.)
  void EndOp(int t);
  // A worker (thread t) is about to run one work item / ran it (`ran`:
  // whether one was pending): applied to the oracle, compared at the next
  // observed section. "" or an oracle failure (the oracle had no item).
  void BeginWork(int t);
  std::string EndWork(int t, bool ran);
  // An observed call of thread t, under the call's exp_lock. "" or an
  // oracle failure (the returned value or the state differ).
  std::string Observe(int t, const hfi1_ctxtdata& rcd, const CallerEvent& e)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(rcd.exp_lock);
  // At the end, on the controller (every thread ended, no lock held, the
  // work drained): the last comparison. "" or an oracle failure.
  std::string AtEnd();

  uint64_t comparisons() const { return comparisons_; }
  // Why the oracle first stopped following ("" if it never did).
  const std::string& stopped() const { return stopped_; }
  // How many times it took up the model's state again after a stop.
  uint64_t resumed() const { return resumed_; }

 private:
  struct Thread {
    bool busy = false;
    bool work = false;      // running a work item
    unsigned order = 0;
    int call = kNoCall;
    bool observed = false;  // the op's call's observed section ran
    rvt_qp* span_qp = nullptr;
    uint64_t seq_at_start = 0;
    bool others_busy_at_start = false;
    const std::string* name = nullptr;
    ListedOp op;
  };
  int QpIndex(const rvt_qp* qp) const;
  // "stress-1 setup@0", "a work item": formatted only for a message.
  static std::string What(const Thread& th);
  bool OthersDangerous(int me, std::string* why) const;
  void Stop(const std::string& why);
  // Thread t is at its op's last observed section, its effects all done:
  // if no other thread is inside an op, the oracle takes the model's state
  // (snapshot.h's AdoptSnapshot, checked equal) and follows again.
  bool Resume(int t) ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx_.rcd->exp_lock);
  // `where` is formatted only if the states differ.
  std::string Compare(absl::FunctionRef<std::string()> where)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx_.rcd->exp_lock);
  // Applies e to the oracle; false if the oracle does not model what it did.
  bool Apply(const CallerEvent& e, int q, bool* compare_ret, int64_t* oracle_ret);

  const ContextState& ctx_;
  const workqueue_struct& wq_;
  const bool flush_handoff_;
  oracle::FlowOracle oracle_;
  std::vector<Thread> th_;
  uint64_t seq_ = 0;  // bumped at every op's or work item's begin and end
  uint64_t comparisons_ = 0;
  std::string stopped_;
  bool following_ = true;
  uint64_t resumed_ = 0;
};

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_ORACLE_FOLLOW_H_
