// core/caller_checks_test.cc: each stress check fires on a situation built to
// break it, and stays quiet on the same situation done right. The model is
// core's one-context TestModel; work runs only when the test drains it.
#include "core/caller_checks.h"

#include <string>
#include <vector>

#include "core/callers.h"
#include "common/atomic_file.h"
#include "common/check_id_doc.h"
#include "core/invariants.h"
#include "core/test_model.h"
#include "core/tid_rdma.h"
#include "gmock/gmock-matchers.h"
#include "gmock/gmock-more-matchers.h"
#include "gtest/gtest.h"
#include "lockcheck/lockdep.h"

namespace flowcheck {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Whether `id` is one of the stress driver's or one of core's it forwards.
bool KnownId(const std::string& id) {
  for (const auto& row : kStressCheckIds) {
    if (id == row.id) return true;
  }
  for (const auto& row : kInvariantIds) {
    if (id == row.id) return true;
  }
  return false;
}

// The ids of `v`; every finding must carry a known id.
std::vector<std::string> Ids(const std::vector<Finding>& v, bool with_divergences = false) {
  std::vector<std::string> ids;
  for (const Finding& f : v) {
    EXPECT_TRUE(KnownId(f.id)) << "unknown id \"" << f.id << "\": " << f.detail;
    if (with_divergences || !f.divergence) ids.push_back(f.id);
  }
  return ids;
}

std::string Text(const std::vector<Finding>& v) {
  std::string s;
  for (const Finding& f : v) s += f.id + ": " + f.detail + "\n";
  return s;
}

class ChecksTest : public ::testing::Test {
 protected:
  ChecksTest() : model_(4), ctx_(model_.rcd()) { ctx_.qps = model_.qps(); }

  // Runs `check` on ctx_ under exp_lock.
  template <typename F>
  std::vector<Finding> Locked(F check) {
    unsigned long flags;
    spin_lock_irqsave(&ctx_.rcd->exp_lock, flags);
    std::vector<Finding> v = check(ctx_);
    spin_unlock_irqrestore(&ctx_.rcd->exp_lock, flags);
    return v;
  }
  std::vector<Finding> AfterOp() {
    return Locked([](const ContextState& c) ABSL_NO_THREAD_SAFETY_ANALYSIS { return CheckAfterOp(c); });
  }
  std::vector<Finding> NoLostWakeup() {
    return Locked([](const ContextState& c) ABSL_NO_THREAD_SAFETY_ANALYSIS { return CheckNoLostWakeup(c); });
  }
  // Reserves all 32 flows as the harness (recorded in the harness table).
  void FillWithBareFlows() {
    for (int i = 0; i < RXE_NUM_TID_FLOWS; ++i) {
      ASSERT_EQ(caller_reserve_flow(model_.rcd(), i), i);
      SetBare(i, true);
    }
  }
  void SetBare(int flow, bool held) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (held) {
      ctx_.bare_mask |= 1UL << flow;
      ctx_.bare_owner[flow] = 0;
    } else {
      ctx_.bare_mask &= ~(1UL << flow);
    }
  }
  // Test-only corruption of a QP's flow_state (what a buggy kernel would do).
  void SetIndex(int qp, u8 index) {
    unsigned long flags;
    spin_lock_irqsave(&model_.rcd()->exp_lock, flags);
    model_.priv(qp)->flow_state.index = index;
    spin_unlock_irqrestore(&model_.rcd()->exp_lock, flags);
  }

  testing::TestModel model_;
  ContextState ctx_;
};

TEST_F(ChecksTest, QuietOnAFreshContextAndAfterRealOps) {
  EXPECT_THAT(Ids(AfterOp()), IsEmpty());
  ASSERT_EQ(caller_setup_hw_flow(model_.qp(0)), 0);
  ASSERT_EQ(caller_reserve_flow(model_.rcd(), 7), 7);
  SetBare(7, true);
  EXPECT_THAT(Ids(AfterOp()), IsEmpty()) << Text(AfterOp());
}

TEST_F(ChecksTest, AfterOpFiresOnAFlowOwnedByTwoQps) {
  ASSERT_EQ(caller_setup_hw_flow(model_.qp(0)), 0);
  const u8 flow = model_.priv(0)->flow_state.index;
  SetIndex(1, flow);  // qp 2 claims qp 1's flow
  std::vector<Finding> v = AfterOp();
  // qp 2 also has the wrong generation and register for flow 0 (F2).
  EXPECT_THAT(Ids(v), ::testing::ElementsAre("F1", "F2", "F2", "mask-count"));
  EXPECT_THAT(Text(v), HasSubstr("F1: flow 0 is owned 2 times"));
  EXPECT_THAT(Text(v),
              HasSubstr("mask-count: popcount(flow_mask 0x1) = 1 but 2 flow(s) are owned"));
  SetIndex(1, RXE_NUM_TID_FLOWS);
}

TEST_F(ChecksTest, AfterOpFiresOnAQpAndTheHarnessOwningOneFlow) {
  ASSERT_EQ(caller_setup_hw_flow(model_.qp(0)), 0);
  SetBare(model_.priv(0)->flow_state.index, true);
  EXPECT_THAT(Text(AfterOp()), HasSubstr("the harness (handed out twice)"));
}

TEST_F(ChecksTest, AfterOpFiresOnAReleaseThatForgotClearBit) {
  ASSERT_EQ(caller_setup_hw_flow(model_.qp(0)), 0);
  SetIndex(0, RXE_NUM_TID_FLOWS);  // "released" without clear_bit
  std::vector<Finding> v = AfterOp();
  // qp 1 also kept its generation (F6).
  EXPECT_THAT(Ids(v), ::testing::ElementsAre("F1", "F6", "mask-count"));
  EXPECT_THAT(Text(v), HasSubstr("F1: flow 0 is reserved in flow_mask but no QP owns it (leaked)"));
  EXPECT_THAT(Text(v),
              HasSubstr("mask-count: popcount(flow_mask 0x1) = 1 but 0 flow(s) are owned"));
}

TEST_F(ChecksTest, BareReserveFiresOnEagainWithAFreeFlow) {
  auto check = [&](int ret) {
    return Locked([ret](const ContextState& c) ABSL_NO_THREAD_SAFETY_ANALYSIS {
      return CheckBareReserve(c, 5, ret, 3);
    });
  };
  std::vector<Finding> v = check(-EAGAIN);
  EXPECT_THAT(Ids(v), ::testing::ElementsAre("EAGAIN"));
  EXPECT_THAT(Text(v), HasSubstr("returned -EAGAIN while flow_mask was 0x0: flow 0 was free"));
  FillWithBareFlows();
  EXPECT_THAT(Ids(check(-EAGAIN)), IsEmpty());  // all 32 set: -EAGAIN is right
}

TEST_F(ChecksTest, BareReserveFiresOnAFlowHandedOutTwice) {
  ASSERT_EQ(caller_setup_hw_flow(model_.qp(0)), 0);
  const int flow = model_.priv(0)->flow_state.index;
  std::vector<Finding> v = Locked([flow](const ContextState& c) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return CheckBareReserve(c, flow, flow, 2);
  });
  EXPECT_THAT(Ids(v), ::testing::ElementsAre("reserve"));
  EXPECT_THAT(Text(v), HasSubstr("flow 0 handed out twice: kern_reserve_flow(last=0) gave it to "
                                 "harness thread 2 while qp 1 owns it"));
  SetBare(9, true);
  ASSERT_EQ(caller_reserve_flow(model_.rcd(), 9), 9);
  v = Locked([](const ContextState& c) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return CheckBareReserve(c, 9, 9, 1);
  });
  EXPECT_THAT(Ids(v), ::testing::ElementsAre("reserve"));
  EXPECT_THAT(Text(v), HasSubstr("while harness thread 0 holds it"));
}

TEST_F(ChecksTest, BareReserveFiresOnAResultThatIsNoReservedFlow) {
  auto check = [&](int ret) {
    return Locked([ret](const ContextState& c) ABSL_NO_THREAD_SAFETY_ANALYSIS {
      return CheckBareReserve(c, 4, ret, 1);
    });
  };
  std::vector<Finding> v = check(32);
  EXPECT_THAT(Ids(v), ::testing::ElementsAre("reserve"));
  EXPECT_THAT(Text(v), HasSubstr("kern_reserve_flow(last=4) returned 32, neither a flow nor"));
  v = check(4);  // flow 4's bit was never set
  EXPECT_THAT(Ids(v), ::testing::ElementsAre("reserve"));
  EXPECT_THAT(Text(v), HasSubstr("returned flow 4 but its bit is clear in flow_mask 0x0"));
}

TEST_F(ChecksTest, SetupResultFiresOnAnEagainThatLeftTheQpUnqueued) {
  rvt_qp* qp = model_.qp(0);
  auto judge = [&](int ret) {
    unsigned long flags;
    spin_lock_irqsave(&qp->s_lock, flags);
    spin_lock(&ctx_.rcd->exp_lock);
    std::vector<Finding> v = CheckSetupResult(ctx_, qp, ret);
    spin_unlock(&ctx_.rcd->exp_lock);
    spin_unlock_irqrestore(&qp->s_lock, flags);
    return v;
  };
  // Nothing happened, yet "-EAGAIN": the QP is on no queue, nobody wakes it.
  EXPECT_THAT(Ids(judge(-EAGAIN)), ::testing::ElementsAre("setup"));
  EXPECT_THAT(Text(judge(-EAGAIN)), HasSubstr("is on no queue and not flagged"));
  EXPECT_THAT(Text(judge(0)), HasSubstr("returned 0 but the QP owns no reserved flow"));
  FillWithBareFlows();
  ASSERT_EQ(caller_setup_hw_flow(qp), -EAGAIN);
  EXPECT_THAT(Ids(judge(-EAGAIN)), IsEmpty());
}

TEST_F(ChecksTest, NoLostWakeupFiresOnAWaiterLeftWithAFreeFlow) {
  FillWithBareFlows();
  caller_set_wants_flow(model_.qp(0), true);
  ASSERT_EQ(caller_setup_hw_flow(model_.qp(0)), -EAGAIN);
  EXPECT_THAT(Ids(NoLostWakeup()), IsEmpty());  // queued, but all 32 flows taken

  caller_release_flow(model_.rcd(), 5);  // freed WITHOUT waking the head
  SetBare(5, false);
  std::vector<Finding> v = NoLostWakeup();
  EXPECT_THAT(Ids(v), ::testing::ElementsAre("no-lost-wakeup"));
  EXPECT_THAT(Text(v), HasSubstr("qp 1 waits at the head of flow_queue (1 QP(s) waiting) while 1 "
                                 "of 32 flows are free"));

  // The wakeup hfi1_kern_clear_hw_flow would have sent: in flight, then done.
  unsigned long flags;
  spin_lock_irqsave(&model_.rcd()->exp_lock, flags);
  rvt_qp* head = first_qp(model_.rcd(), &model_.rcd()->flow_queue);
  spin_unlock_irqrestore(&model_.rcd()->exp_lock, flags);
  tid_rdma_schedule_tid_wakeup(head);
  EXPECT_THAT(Ids(NoLostWakeup()), IsEmpty());  // a wakeup is pending
  model_.wq().RunAll();
  EXPECT_EQ(model_.priv(0)->flow_state.index, 5);
  EXPECT_THAT(Ids(NoLostWakeup()), IsEmpty());
}

// The kernel's own liveness gap (docs/stress.md): a head that was woken and
// is then flushed takes the wakeup with it; the next waiter is stranded
// while a flow is free. The stress driver's --flush_handoff (default on)
// passes the wakeup on; with it off, this is what the check reports.
TEST_F(ChecksTest, NoLostWakeupShowsTheKernelsFlushOfAWokenHead) {
  FillWithBareFlows();
  for (int i : {0, 1}) {
    caller_set_wants_flow(model_.qp(i), true);
    ASSERT_EQ(caller_setup_hw_flow(model_.qp(i)), -EAGAIN);
  }
  caller_release_flow(model_.rcd(), 5);
  SetBare(5, false);
  unsigned long flags;
  spin_lock_irqsave(&model_.rcd()->exp_lock, flags);
  rvt_qp* head = first_qp(model_.rcd(), &model_.rcd()->flow_queue);
  spin_unlock_irqrestore(&model_.rcd()->exp_lock, flags);
  ASSERT_EQ(head, model_.qp(0));
  tid_rdma_schedule_tid_wakeup(head);  // qp 1 is woken ...
  caller_flush_wait(model_.qp(0));     // ... and flushed before its work runs
  caller_set_wants_flow(model_.qp(0), false);
  model_.wq().RunAll();
  EXPECT_THAT(Text(NoLostWakeup()), HasSubstr("qp 2 waits at the head of flow_queue"));
}

TEST_F(ChecksTest, AtRestFiresOnALeakedReference) {
  EXPECT_THAT(Ids(Locked([](const ContextState& c) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                return CheckAtRest(c);
              })),
              IsEmpty());
  rvt_get_qp(model_.qp(2));
  std::vector<Finding> v = Locked([](const ContextState& c) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return CheckAtRest(c);
  });
  EXPECT_THAT(Ids(v), ::testing::ElementsAre("W3"));
  rvt_put_qp(model_.qp(2));
}

TEST_F(ChecksTest, FinalFiresOnAnythingLeftBehind) {
  auto final_check = [&] {
    return Locked([](const ContextState& c) ABSL_NO_THREAD_SAFETY_ANALYSIS { return CheckFinal(c); });
  };
  EXPECT_THAT(Ids(final_check()), IsEmpty());
  ASSERT_EQ(caller_setup_hw_flow(model_.qp(0)), 0);
  std::vector<Finding> v = final_check();
  EXPECT_THAT(Ids(v), ::testing::Contains("final"));
  EXPECT_THAT(Text(v), HasSubstr("flow_mask is 0x1 after every owner released its flows"));
  caller_clear_hw_flow(model_.qp(0));
  model_.wq().RunAll();
  EXPECT_THAT(Ids(final_check()), IsEmpty());
}

TEST(FirstFailureTest, SkipsUpstreamDivergences) {
  std::vector<Finding> v = {{"W5", "[R-1] drift", true}, {"F1", "two owners", false}};
  ASSERT_NE(FirstFailure(v), nullptr);
  EXPECT_EQ(FirstFailure(v)->id, "F1");
  v.pop_back();
  EXPECT_EQ(FirstFailure(v), nullptr);
}

// docs/stress.md lists exactly the stress driver's own ids, each with the
// table's one-line meaning.
TEST(StressIdsDoc, StressMdListsEveryStressIdWithItsMeaning) {
  std::vector<IdRow> rows;
  AppendIdRows(kStressCheckIds, &rows);
  std::string doc;
  ASSERT_TRUE(ReadWholeFile("docs/stress.md", &doc));
  EXPECT_THAT(CompareIdTables(rows, doc), IsEmpty());
}

}  // namespace
}  // namespace flowcheck
