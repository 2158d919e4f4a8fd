// CheckInvariants: silent on good states (at rest and while threads run),
// and each of F1-F6 and W1-W6 shown firing on a deliberately corrupted state.
// Corruptions are written straight into the structures under the lock that
// guards them, then undone so teardown stays sound.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/callers.h"
#include "core/invariants.h"
#include "core/model_audit.h"
#include "core/test_model.h"
#include "core/tid_rdma.h"
#include "gmock/gmock-matchers.h"
#include "gmock/gmock-more-matchers.h"
#include "gtest/gtest.h"

namespace {

using flowcheck::CheckFlowBitmap;
using flowcheck::CheckInvariants;
using flowcheck::CheckOptions;
using flowcheck::InvariantViolation;
using flowcheck::Severity;
using flowcheck::testing::Ids;
using flowcheck::testing::TestModel;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr unsigned long kHarness = 0xFFFFFFF8UL;  // flows 3..31

// qpn 1..3 (QPs 0-2) got flows 0-2, the harness holds 3..31; QP 0 released
// flow 0 again; QPs 4, 5 wait on flow_queue (qpn 5 head, its trigger_work
// pending); QP 3 waits on rarr_queue; QP 1 owns flow 1 and waits on rarr too.
class Invariants : public ::testing::Test {
 public:
  Invariants() : m_(6) {
    for (int i = 0; i < 3; ++i) EXPECT_EQ(caller_setup_hw_flow(m_.qp(i)), 0);
    for (int f = 3; f < RXE_NUM_TID_FLOWS; ++f) EXPECT_EQ(caller_reserve_flow(rcd(), f), f);
    caller_rarr_wait(m_.qp(3));
    caller_rarr_wait(m_.qp(1));
    for (int i = 4; i < 6; ++i) EXPECT_EQ(caller_setup_hw_flow(m_.qp(i)), -EAGAIN);
    caller_clear_hw_flow(m_.qp(0));
  }

  hfi1_ctxtdata* rcd() { return m_.rcd(); }
  hfi1_qp_priv* priv(int i) { return m_.priv(i); }
  std::vector<InvariantViolation> Check() { return m_.Check(kHarness); }

  // Expects exactly the invariant `id`, as a violation whose detail
  // contains `text` (other ids may fire as consequences).
  void ExpectFires(const std::string& id, const std::string& text) {
    std::vector<InvariantViolation> v = Check();
    bool found = false;
    for (const InvariantViolation& x : v) {
      found |= x.id == id && x.severity == Severity::kViolation &&
               x.detail.find(text) != std::string::npos;
    }
    EXPECT_TRUE(found) << "expected " << id << " \"" << text << "\" in:\n"
                       << flowcheck::FormatViolations(v);
  }

  void WithExpLock(void (*fn)(hfi1_ctxtdata*, Invariants*)) {
    unsigned long flags;
    spin_lock_irqsave(&rcd()->exp_lock, flags);
    fn(rcd(), this);
    spin_unlock_irqrestore(&rcd()->exp_lock, flags);
  }

  rvt_qp* qp(int i) { return m_.qp(i); }

  TestModel m_;
};

TEST_F(Invariants, SilentOnAGoodBusyState) {
  ASSERT_EQ(m_.wq().pending_count(), 1u);
  EXPECT_THAT(Check(), IsEmpty());
  m_.wq().RunAll();
  EXPECT_THAT(Check(), IsEmpty());
}

TEST_F(Invariants, F1LeakedBit) {
  WithExpLock([](hfi1_ctxtdata* r, Invariants*) ABSL_NO_THREAD_SAFETY_ANALYSIS { r->flow_mask |= 1UL; });
  ExpectFires("F1", "flow 0 is reserved in flow_mask but no QP owns it");
}

TEST_F(Invariants, F1FlowHandedOutTwice) {
  priv(2)->flow_state.index = 1;
  ExpectFires("F1", "flow 1 is owned 2 times: qp 2, qp 3");
  priv(2)->flow_state.index = 2;
  // The harness and a QP on one flow count too.
  priv(2)->flow_state.index = 7;
  ExpectFires("F1", "flow 7 is owned 2 times: qp 3, the harness");
  priv(2)->flow_state.index = 2;
}

TEST_F(Invariants, F1FreeFlowClaimedAndBitsAbove31AndBadIndex) {
  WithExpLock([](hfi1_ctxtdata* r, Invariants*) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    r->flow_mask &= ~(1UL << 2);
    r->flow_mask |= 1UL << 40;
  });
  ExpectFires("F1", "flow 2 is free in flow_mask but qp 3's flow_state.index says it owns it");
  ExpectFires("F1", "has bits above 31 set");
  priv(5)->flow_state.index = 40;
  ExpectFires("F1", "qp 6: flow_state.index 40 is neither");
  priv(5)->flow_state.index = RXE_NUM_TID_FLOWS;
}

TEST_F(Invariants, F1CheapBitmapCheckFiresOnlyOnTheBitmap) {
  unsigned long flags;
  spin_lock_irqsave(&rcd()->exp_lock, flags);
  EXPECT_THAT(CheckFlowBitmap(*rcd(), m_.qps(), kHarness), IsEmpty());
  rcd()->flow_queue.enqueue += 5;  // a W5 problem: not the bitmap's business
  EXPECT_THAT(CheckFlowBitmap(*rcd(), m_.qps(), kHarness), IsEmpty());
  rcd()->flow_mask |= 1UL;
  std::vector<InvariantViolation> v = CheckFlowBitmap(*rcd(), m_.qps(), kHarness);
  EXPECT_THAT(Ids(v), ::testing::ElementsAre("F1"));
  EXPECT_THAT(v, Contains(::testing::Field(&InvariantViolation::detail, HasSubstr("flow 0"))));
  rcd()->flow_mask &= ~1UL;
  rcd()->flow_queue.enqueue -= 5;
  spin_unlock_irqrestore(&rcd()->exp_lock, flags);
}

TEST_F(Invariants, F2GenerationMismatchAndWrongRegister) {
  priv(1)->flow_state.generation ^= 1;
  ExpectFires("F2", "qp 2 owns flow 1 with generation");
  priv(1)->flow_state.generation ^= 1;
  rcd()->rcv_tid_flow_table[2].store(0);
  ExpectFires("F2", "flow 2 (owned by qp 3");
}

TEST_F(Invariants, F3FreeFlowWithAnActiveRegister) {
  kern_set_hw_flow(rcd(), 5, 0);
  ExpectFires("F3", "free flow 0: register 0x6f00002800");
}

TEST_F(Invariants, F4ReleaseThatDidNotAdvanceAndReservedAfterRelease) {
  WithExpLock([](hfi1_ctxtdata* r, Invariants*) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    r->audit.clear[0].new_gen = r->audit.clear[0].old_gen;  // as a broken next()
  });
  ExpectFires("F4", "flow 0: release #1 moved the generation");
  m_.set_flow_generation(0, KERN_GENERATION_RESERVED);
  ExpectFires("F4", "flow 0: generation is RESERVED after 1 release(s)");
}

TEST_F(Invariants, F5PsnBeyondTheBudget) {
  priv(1)->flow_state.psn = 2048;
  ExpectFires("F5", "qp 2 (flow 1): flow_state.psn 2048 > 2047");
  priv(1)->flow_state.psn = 0;
}

TEST_F(Invariants, F6NoFlowButPsnOrAStrayGeneration) {
  priv(4)->flow_state.psn = 7;
  ExpectFires("F6", "qp 5 owns no flow but flow_state.psn is 7");
  priv(4)->flow_state.psn = 0;
  priv(4)->flow_state.generation = 0x42;
  ExpectFires("F6", "keeps generation 0x42, which no RESYNC saved");
  priv(4)->flow_state.generation = KERN_GENERATION_RESERVED;
}

TEST_F(Invariants, W1NodeLinkedNowhereAndAStrayNodeOnAQueue) {
  list_head elsewhere;
  INIT_LIST_HEAD(&elsewhere);
  priv(2)->tid_wait.next = &elsewhere;  // looks linked, is on no queue
  ExpectFires("W1", "qp 3's tid_wait is linked but on neither queue");
  INIT_LIST_HEAD(&priv(2)->tid_wait);

  list_head stray;
  unsigned long flags;
  spin_lock_irqsave(&rcd()->exp_lock, flags);
  list_add_tail(&stray, &rcd()->flow_queue.queue_head);
  spin_unlock_irqrestore(&rcd()->exp_lock, flags);
  ExpectFires("W1", "flow_queue holds node");
  spin_lock_irqsave(&rcd()->exp_lock, flags);
  list_del_init(&stray);
  spin_unlock_irqrestore(&rcd()->exp_lock, flags);
  EXPECT_THAT(Check(), IsEmpty());
}

TEST_F(Invariants, W2QueuedWithoutTheFlag) {
  unsigned long flags;
  spin_lock_irqsave(&m_.qp(5)->s_lock, flags);
  m_.qp(5)->s_flags &= ~HFI1_S_WAIT_TID_SPACE;
  spin_unlock_irqrestore(&m_.qp(5)->s_lock, flags);
  ExpectFires("W2", "qp 6 is on flow_queue without HFI1_S_WAIT_TID_SPACE");
  // Not read (and not reported) unless the caller says the model is at rest.
  CheckOptions options;
  options.harness_reserved_flows = kHarness;
  spin_lock_irqsave(&rcd()->exp_lock, flags);
  EXPECT_THAT(CheckInvariants(*rcd(), m_.qps(), options), IsEmpty());
  spin_unlock_irqrestore(&rcd()->exp_lock, flags);
  spin_lock_irqsave(&m_.qp(5)->s_lock, flags);
  m_.qp(5)->s_flags |= HFI1_S_WAIT_TID_SPACE;
  spin_unlock_irqrestore(&m_.qp(5)->s_lock, flags);
}

TEST_F(Invariants, W3ReferenceDroppedTwiceOrLeaked) {
  m_.qp(4)->refcount -= 1;
  ExpectFires("W3", "qp 5 holds 2 reference(s), fewer than the 3 owned");
  m_.qp(4)->refcount += 2;
  ExpectFires("W3", "qp 5 holds 4 reference(s) at rest, 3 expected");
  m_.qp(4)->refcount -= 1;
}

TEST_F(Invariants, W4WaiterOwningAFlowAndAGrantPastTheHead) {
  priv(5)->flow_state.index = 0;
  WithExpLock([](hfi1_ctxtdata* r, Invariants*) ABSL_NO_THREAD_SAFETY_ANALYSIS { r->flow_mask |= 1; });
  ExpectFires("W4", "qp 6 waits on flow_queue while owning flow 0");
  priv(5)->flow_state.index = RXE_NUM_TID_FLOWS;
  WithExpLock([](hfi1_ctxtdata* r, Invariants*) ABSL_NO_THREAD_SAFETY_ANALYSIS { r->flow_mask &= ~1UL; });
  // What hfi1_kern_setup_hw_flow records if a grant skips the queue (as a
  // mutant without kernel_tid_waiters would do): qpn 3 served past qpn 5.
  WithExpLock([](hfi1_ctxtdata* r, Invariants* t) ABSL_NO_THREAD_SAFETY_ANALYSIS { hfi1_model_audit_grant(r, t->qp(2)); });
  ExpectFires("W4", "last: qp 3 was granted while qp 5 was the head");
}

TEST_F(Invariants, W5CounterDriftNotExplainedByR1IsAViolation) {
  WithExpLock([](hfi1_ctxtdata* r, Invariants*) ABSL_NO_THREAD_SAFETY_ANALYSIS { r->flow_queue.dequeue += 1; });
  ExpectFires("W5", "flow_queue: enqueue 2 - dequeue 1 = 1 but 2 queued");
  WithExpLock([](hfi1_ctxtdata* r, Invariants*) ABSL_NO_THREAD_SAFETY_ANALYSIS { r->flow_queue.dequeue -= 1; });
}

TEST_F(Invariants, W6TicketsOutOfOrder) {
  std::swap(priv(4)->tid_enqueue, priv(5)->tid_enqueue);
  ExpectFires("W6", "flow_queue: qp 6 (tid_enqueue 1) is queued behind qp 5 (tid_enqueue 2)");
  std::swap(priv(4)->tid_enqueue, priv(5)->tid_enqueue);
  priv(5)->tid_enqueue = 9;
  ExpectFires("W6", "tail qp 6 has tid_enqueue 9, ahead of the queue's enqueue 2");
  priv(5)->tid_enqueue = 2;
  EXPECT_THAT(Check(), IsEmpty());
}

// CheckInvariantsVerdict runs the same checks as CheckInvariants without
// formatting: its answer is the list's severities. (TestModel::Check also
// asserts this on every state these tests build; here the three outcomes.)
TEST_F(Invariants, VerdictIsTheSeveritiesOfTheList) {
  auto verdict = [this] {
    CheckOptions options;
    options.quiescent = true;
    options.harness_reserved_flows = kHarness;
    unsigned long flags;
    spin_lock_irqsave(&rcd()->exp_lock, flags);
    flowcheck::InvariantVerdict v = flowcheck::CheckInvariantsVerdict(*rcd(), m_.qps(), options);
    spin_unlock_irqrestore(&rcd()->exp_lock, flags);
    return v;
  };
  EXPECT_FALSE(verdict().any());
  EXPECT_THAT(Check(), IsEmpty());
  // A harness flow whose generation is RESERVED and was never released: F4.
  WithExpLock([](hfi1_ctxtdata* r, Invariants*) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    r->flows[7].generation = 0xFFFFF;
  });
  EXPECT_TRUE(verdict().upstream_divergence);
  EXPECT_FALSE(verdict().violation);
  EXPECT_TRUE(flowcheck::HasSeverity(Check(), Severity::kUpstreamDivergence));
  priv(4)->flow_state.psn = 5;  // F6: no flow but a PSN
  EXPECT_TRUE(verdict().violation);
  EXPECT_TRUE(verdict().upstream_divergence);
  EXPECT_TRUE(flowcheck::HasSeverity(Check(), Severity::kViolation));
}

TEST_F(Invariants, ArgQpOfAnotherContextIsACallerError) {
  TestModel other(1);
  std::vector<rvt_qp*> qps = m_.qps();
  qps.push_back(other.qp(0));
  CheckOptions options;
  options.quiescent = true;
  options.harness_reserved_flows = kHarness;
  unsigned long flags;
  spin_lock_irqsave(&rcd()->exp_lock, flags);
  std::vector<InvariantViolation> v = CheckInvariants(*rcd(), qps, options);
  const flowcheck::InvariantVerdict verdict = flowcheck::CheckInvariantsVerdict(*rcd(), qps, options);
  spin_unlock_irqrestore(&rcd()->exp_lock, flags);
  EXPECT_THAT(Ids(v), ::testing::ElementsAre("ARG"));
  EXPECT_TRUE(verdict.violation);
}

// The checker's no-quiescence mode while threads run the flow layer: it must
// never report a violation (and, under TSan, never race).
TEST(InvariantsWhileRunning, NoViolationFromAnyThreadUnderExpLock) {
  constexpr int kQps = 40, kThreads = 2, kRounds = 150;
  TestModel m(kQps);
  m.wq().Start(2);
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&m, &done, t] {
      for (int round = 0; round < kRounds; ++round) {
        for (int i = t; i < kQps; i += kThreads) {
          rvt_qp* qp = m.qp(i);
          switch ((round + i) % 5) {
            case 0: caller_set_wants_flow(qp, true); caller_setup_hw_flow(qp); break;
            case 1: caller_clear_hw_flow(qp); break;
            case 2: caller_rarr_wait(qp); break;
            case 3: caller_rarr_grant(qp); break;
            case 4: if (i % 7 == 0) caller_flush_wait(qp); else caller_setup_hw_flow(qp); break;
          }
        }
      }
      done.fetch_add(1);
    });
  }
  int checks = 0;
  std::vector<InvariantViolation> bad;
  while (done.load() < kThreads || checks < 20) {
    unsigned long flags;
    spin_lock_irqsave(&m.rcd()->exp_lock, flags);
    std::vector<InvariantViolation> v = CheckInvariants(*m.rcd(), m.qps());
    spin_unlock_irqrestore(&m.rcd()->exp_lock, flags);
    for (const InvariantViolation& x : v) {
      if (x.severity == Severity::kViolation) bad.push_back(x);
    }
    ++checks;
  }
  for (std::thread& t : threads) t.join();
  m.wq().WaitIdle();
  m.wq().Stop();
  EXPECT_THAT(bad, IsEmpty()) << flowcheck::FormatViolations(bad);
  std::vector<InvariantViolation> at_rest = m.Check();
  EXPECT_FALSE(flowcheck::HasSeverity(at_rest, Severity::kViolation))
      << flowcheck::FormatViolations(at_rest);
  for (int i = 0; i < kQps; ++i) EXPECT_EQ(hfi1_model_teardown_qp(m.qp(i)), 0) << i;
}

}  // namespace
