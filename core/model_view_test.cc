// core/model_view_test.cc: the checkers' reads of the model. The queue
// walks stay bounded on a corrupted (cyclic) list and map nodes back to
// QPs; the s_flags read sees the flag the model sets.
#include "core/model_view.h"

#include <vector>

#include "core/callers.h"
#include "core/test_model.h"
#include "gmock/gmock-matchers.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace {

using ::testing::ElementsAre;

// A queue of three bare nodes, head -> a -> b -> c -> head.
struct ThreeNodes {
  ThreeNodes() {
    INIT_LIST_HEAD(&q.queue_head);
    for (list_head* n : {&a, &b, &c}) list_add_tail(n, &q.queue_head);
  }
  tid_queue q = {};
  list_head a, b, c;
};

TEST(WalkQueue, VisitsHeadFirstAndStopsWhenAsked) {
  ThreeNodes t;
  std::vector<const list_head*> seen;
  EXPECT_EQ(WalkQueue(t.q, 10, [&](const list_head* n) {
              seen.push_back(n);
              return true;
            }),
            3u);
  EXPECT_THAT(seen, ElementsAre(&t.a, &t.b, &t.c));
  seen.clear();
  EXPECT_EQ(WalkQueue(t.q, 10, [&](const list_head* n) {
              seen.push_back(n);
              return n != &t.b;
            }),
            2u);
  EXPECT_TRUE(OnQueue(t.q, &t.c));
  list_head stray;
  EXPECT_FALSE(OnQueue(t.q, &stray));
}

TEST(WalkQueue, ACycleThatMissesTheHeadEndsAtTheBound) {
  ThreeNodes t;
  t.c.next = &t.a;  // a -> b -> c -> a -> ...: the head is never reached
  size_t visits = 0;
  EXPECT_EQ(WalkQueue(t.q, 7, [&](const list_head*) { return ++visits, true; }), 7u);
  EXPECT_EQ(visits, 7u);
  list_head stray;
  EXPECT_FALSE(OnQueue(t.q, &stray));  // kMaxQueueWalk nodes, then gives up
  t.c.next = &t.q.queue_head;
}

class ModelView : public ::testing::Test {
 protected:
  ModelView() : m_(4) {
    // Every flow taken, so that qpn 1 and 2 queue on flow_queue; qpn 3
    // waits on rarr_queue; qpn 4 waits nowhere.
    for (int f = 0; f < RXE_NUM_TID_FLOWS; ++f) EXPECT_EQ(caller_reserve_flow(m_.rcd(), f), f);
    EXPECT_EQ(caller_setup_hw_flow(m_.qp(0)), -EAGAIN);
    EXPECT_EQ(caller_setup_hw_flow(m_.qp(1)), -EAGAIN);
    caller_rarr_wait(m_.qp(2));
  }
  ~ModelView() override {
    for (int i = 0; i < 3; ++i) caller_flush_wait(m_.qp(i));
    for (int f = 0; f < RXE_NUM_TID_FLOWS; ++f) caller_release_flow(m_.rcd(), f);
    m_.wq().RunAll();
  }
  testing::TestModel m_;
};

TEST_F(ModelView, QpNodesMapNodesBackToQps) {
  const QpNodes nodes(m_.qps());
  EXPECT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes.IndexOf(&m_.priv(2)->tid_wait), 2);
  list_head stray;
  EXPECT_EQ(nodes.IndexOf(&stray), -1);
}

TEST_F(ModelView, QueueOfEachAndQueueMembers) {
  hfi1_ctxtdata* rcd = m_.rcd();
  const QpNodes nodes(m_.qps());
  WaitQueue on[4];
  std::vector<int> flow, rarr;
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  QueueOfEach(*rcd, nodes, on);
  QueueMembers(rcd->flow_queue, nodes, [&](int i) { flow.push_back(i); });
  QueueMembers(rcd->rarr_queue, nodes, [&](int i) { rarr.push_back(i); });
  // Only QPs 0 and 1 listed: the rarr_queue's node of QP 2 is unknown, and
  // the walk stops after it.
  const QpNodes first_two(absl::MakeConstSpan(m_.qps()).subspan(0, 2));
  std::vector<int> partial;
  QueueMembers(rcd->rarr_queue, first_two, [&](int i) { partial.push_back(i); });
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  EXPECT_THAT(on, ElementsAre(WaitQueue::kFlow, WaitQueue::kFlow, WaitQueue::kRarr,
                              WaitQueue::kNone));
  EXPECT_THAT(flow, ElementsAre(0, 1));
  EXPECT_THAT(rarr, ElementsAre(2));
  EXPECT_THAT(partial, ElementsAre(-1));
}

TEST_F(ModelView, WaitTidSpaceFlagIsTheModelsFlag) {
  // At rest: this thread is the only one.
  EXPECT_TRUE(WaitTidSpaceFlag(m_.qp(0)));
  EXPECT_TRUE(WaitTidSpaceFlag(m_.qp(2)));
  EXPECT_FALSE(WaitTidSpaceFlag(m_.qp(3)));
  EXPECT_EQ(WaitTidSpaceFlag(m_.qp(1)), m_.waiting(1));
}

}  // namespace
}  // namespace flowcheck
