// lockcheck/internal/class_graph_test.cc: the pure class graph alone.
#include "lockcheck/internal/class_graph.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"

namespace lockcheck {
namespace internal {

// Reaches the private rows to break the graph the way a bug in it would.
class ClassGraphTestPeer {
 public:
  static void DropBackwardEdge(ClassGraph& g, int from, int to) {
    g.pred_[to][from >> 6] &= ~(uint64_t{1} << (from & 63));
  }
  static void SetUsage(ClassGraph& g, int cls, uint8_t bits) { g.usage_[cls] = bits; }
};

namespace {

using Dir = ClassGraph::Direction;
constexpr int kLimit = 200;

// The graph is 256 KiB: not on the stack.
std::unique_ptr<ClassGraph> Make() { return std::make_unique<ClassGraph>(); }

TEST(ClassGraph, EdgesAreNewOnceAndDirected) {
  auto g = Make();
  EXPECT_TRUE(g->AddEdge(1, 2));
  EXPECT_FALSE(g->AddEdge(1, 2));
  EXPECT_TRUE(g->HasEdge(1, 2));
  EXPECT_FALSE(g->HasEdge(2, 1));
  EXPECT_TRUE(g->AddEdge(130, 1));  // another bitmap word
  EXPECT_TRUE(g->HasEdge(130, 1));
  EXPECT_EQ(g->CheckInvariants(), "");
}

TEST(ClassGraph, UsageBits) {
  auto g = Make();
  EXPECT_TRUE(g->AddUsage(3, kUsedInHardirq));
  EXPECT_FALSE(g->AddUsage(3, kUsedInHardirq));
  EXPECT_TRUE(g->HasUsage(3, kUsedInHardirq));
  EXPECT_FALSE(g->HasUsage(3, kUsedInHardirq | kEnabledHardirq));
  EXPECT_TRUE(g->AddUsage(3, kEnabledHardirq));
  EXPECT_TRUE(g->HasUsage(3, kUsedInHardirq | kEnabledHardirq));
}

TEST(ClassGraph, ShortestPathBothWays) {
  auto g = Make();
  // 1 -> 2 -> 3 -> 4 and a shortcut 1 -> 70 -> 4.
  g->AddEdge(1, 2);
  g->AddEdge(2, 3);
  g->AddEdge(3, 4);
  g->AddEdge(1, 70);
  g->AddEdge(70, 4);
  const auto is = [](int target) { return [target](int c) { return c == target; }; };
  EXPECT_EQ(g->ShortestPath(1, Dir::kForward, kLimit, is(4)), (std::vector<int>{1, 70, 4}));
  EXPECT_EQ(g->ShortestPath(4, Dir::kBackward, kLimit, is(1)), (std::vector<int>{4, 70, 1}));
  EXPECT_EQ(g->ShortestPath(3, Dir::kForward, kLimit, is(3)), (std::vector<int>{3}));
  EXPECT_TRUE(g->ShortestPath(4, Dir::kForward, kLimit, is(1)).empty());
  // Classes at or past the limit are not visited.
  EXPECT_EQ(g->ShortestPath(1, Dir::kForward, 60, is(4)), (std::vector<int>{1, 2, 3, 4}));
}

TEST(ClassGraph, ClearForgetsClassesBelowTheLimit) {
  auto g = Make();
  g->AddEdge(1, 2);
  g->AddUsage(2, kEnabledHardirq);
  g->Clear(kLimit);
  EXPECT_FALSE(g->HasEdge(1, 2));
  EXPECT_FALSE(g->HasUsage(2, kEnabledHardirq));
  EXPECT_TRUE(g->AddEdge(1, 2));
  EXPECT_EQ(g->CheckInvariants(), "");
}

TEST(ClassGraph, CheckInvariantsCatchesABrokenMirror) {
  auto g = Make();
  g->AddEdge(5, 9);
  ClassGraphTestPeer::DropBackwardEdge(*g, 5, 9);
  EXPECT_EQ(g->CheckInvariants(), "edge 5 -> 9 is recorded forward only");
}

TEST(ClassGraph, CheckInvariantsCatchesClassZeroAndBadUsage) {
  auto g = Make();
  g->AddEdge(0, 9);
  EXPECT_EQ(g->CheckInvariants(), "edge 0 -> 9 touches class 0");
  auto h = Make();
  ClassGraphTestPeer::SetUsage(*h, 4, 0x80);
  EXPECT_EQ(h->CheckInvariants(), "class 4 has undefined usage bits");
}

}  // namespace
}  // namespace internal
}  // namespace lockcheck
