// The table of docs/kernel.md, "Who must hold what", at run time: every flow-layer function called
// without a lock it needs produces a lockdep_assert_held report, and with its
// locks none. (The compile-time half: //core:reserve_without_exp_lock_test
// and the analysis of every call site in core/.)
#include <functional>
#include <string>

#include "core/invariants.h"
#include "core/test_model.h"
#include "core/tid_rdma.h"
#include "gtest/gtest.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/report.h"

namespace {

using flowcheck::testing::TestModel;

enum Held { kNone = 0, kSLock = 1, kExpLock = 2, kBoth = 3 };

// Runs `call` holding `held` of QP 0's s_lock and the context's exp_lock (in
// the legal order) and returns the number of kAssertHeld reports.
int AssertReports(TestModel& m, Held held, const std::function<void()>& call)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  lockcheck::RecordingHandler rec;
  unsigned long f1 = 0, f2 = 0;
  if (held & kSLock) spin_lock_irqsave(&m.qp(0)->s_lock, f1);
  if (held & kExpLock) spin_lock_irqsave(&m.rcd()->exp_lock, f2);
  call();
  if (held & kExpLock) spin_unlock_irqrestore(&m.rcd()->exp_lock, f2);
  if (held & kSLock) spin_unlock_irqrestore(&m.qp(0)->s_lock, f1);
  return rec.count(lockcheck::Rule::kAssertHeld);
}

struct Case {
  const char* name;
  Held needs;
  std::function<void(TestModel&)> call;
};

class LockContract : public ::testing::TestWithParam<Case> {};

TEST_P(LockContract, ReportsEachMissingLockAndNothingWithThem) {
  const Case& c = GetParam();
  for (int held = kNone; held <= kBoth; ++held) {
    // Every function must see its locks; locks it takes itself must not be
    // held (they are not recursive), so only subsets of `needs` are tried.
    if ((held & ~c.needs) != 0) continue;
    TestModel m(2);
    caller_set_wants_flow(m.qp(0), false);
    int reports = AssertReports(m, static_cast<Held>(held), [&] { c.call(m); });
    if (held == c.needs) {
      EXPECT_EQ(reports, 0) << c.name << " with all its locks";
    } else {
      EXPECT_GE(reports, 1) << c.name << " holding only " << held << " of " << c.needs;
    }
  }
}

hfi1_ctxtdata* R(TestModel& m) { return m.rcd(); }
rvt_qp* Q(TestModel& m) { return m.qp(0); }

#define NTSA ABSL_NO_THREAD_SAFETY_ANALYSIS
INSTANTIATE_TEST_SUITE_P(
    Table, LockContract,
    ::testing::Values(
        Case{"kern_reserve_flow", kExpLock, [](TestModel& m) NTSA { kern_reserve_flow(R(m), 3); }},
        Case{"kern_setup_hw_flow", kExpLock, [](TestModel& m) NTSA { kern_setup_hw_flow(R(m), 3); }},
        Case{"kern_clear_hw_flow", kExpLock, [](TestModel& m) NTSA { kern_clear_hw_flow(R(m), 3); }},
        Case{"first_qp", kExpLock,
             [](TestModel& m) NTSA { rvt_put_qp(first_qp(R(m), &R(m)->flow_queue)); }},
        Case{"kernel_tid_waiters", kBoth,
             [](TestModel& m) NTSA { kernel_tid_waiters(R(m), &R(m)->flow_queue, Q(m)); }},
        Case{"queue_qp_for_tid_wait", kBoth,
             [](TestModel& m) NTSA { queue_qp_for_tid_wait(R(m), &R(m)->rarr_queue, Q(m)); }},
        Case{"dequeue_tid_waiter", kBoth,
             [](TestModel& m) NTSA { dequeue_tid_waiter(R(m), &R(m)->rarr_queue, Q(m)); }},
        Case{"__trigger_tid_waiter", kSLock, [](TestModel& m) NTSA { __trigger_tid_waiter(Q(m)); }},
        Case{"_tid_rdma_flush_wait", kSLock,
             [](TestModel& m) NTSA { _tid_rdma_flush_wait(Q(m), &R(m)->flow_queue); }},
        Case{"hfi1_tid_rdma_flush_wait", kSLock,
             [](TestModel& m) NTSA { hfi1_tid_rdma_flush_wait(Q(m)); }},
        Case{"hfi1_kern_setup_hw_flow", kSLock,
             [](TestModel& m) NTSA { hfi1_kern_setup_hw_flow(R(m), Q(m)); }},
        Case{"hfi1_kern_clear_hw_flow", kSLock,
             [](TestModel& m) NTSA {
               caller_setup_hw_flow(m.qp(1));  // someone else's flow
               m.qp(0)->priv->flow_state = m.qp(1)->priv->flow_state;
               m.qp(1)->priv->flow_state.index = RXE_NUM_TID_FLOWS;
               hfi1_kern_clear_hw_flow(R(m), Q(m));
             }},
        Case{"hfi1_schedule_send", kSLock, [](TestModel& m) NTSA { hfi1_schedule_send(Q(m)); }},
        Case{"CheckInvariants", kExpLock,
             [](TestModel& m) NTSA { flowcheck::CheckInvariants(*R(m), m.qps()); }}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = info.param.name;
      for (char& ch : name) {
        if (ch == '_') ch = 'X';
      }
      return name;
    });
#undef NTSA

}  // namespace
