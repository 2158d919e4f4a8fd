// lockcheck/internal/class_graph.cc: see class_graph.h.
#include "lockcheck/internal/class_graph.h"

#include <algorithm>
#include <deque>
#include <iterator>

namespace lockcheck {
namespace internal {

bool ClassGraph::AddEdge(int from, int to) {
  if (HasEdge(from, to)) return false;
  Set(succ_[from], to);
  Set(pred_[to], from);
  return true;
}

bool ClassGraph::AddUsage(int cls, uint8_t bit) {
  if (HasUsage(cls, bit)) return false;
  usage_[cls] |= bit;
  return true;
}

std::vector<int> ClassGraph::ShortestPath(int start, Direction direction, int limit,
                                          const std::function<bool(int)>& goal) const {
  const auto& rows = direction == Direction::kForward ? succ_ : pred_;
  std::vector<int> parent(limit, 0);  // 0: not visited (class ids start at 1)
  std::deque<int> queue{start};
  parent[start] = start;
  while (!queue.empty()) {
    int u = queue.front();
    queue.pop_front();
    if (goal(u)) {
      std::vector<int> path{u};
      while (u != start) path.push_back(u = parent[u]);
      std::reverse(path.begin(), path.end());
      return path;
    }
    for (int w = 0; w < kClassWords && w * 64 < limit; ++w) {
      for (uint64_t bits = rows[u][w]; bits != 0; bits &= bits - 1) {
        const int v = w * 64 + __builtin_ctzll(bits);
        if (v < limit && parent[v] == 0) {
          parent[v] = u;
          queue.push_back(v);
        }
      }
    }
  }
  return {};
}

void ClassGraph::Clear(int limit) {
  for (int c = 0; c < limit; ++c) {
    usage_[c] = 0;
    std::fill(std::begin(succ_[c]), std::end(succ_[c]), 0);
    std::fill(std::begin(pred_[c]), std::end(pred_[c]), 0);
  }
}

std::string ClassGraph::CheckInvariants() const {
  for (int a = 0; a < kMaxClasses; ++a) {
    if (usage_[a] & ~(kUsedInHardirq | kEnabledHardirq)) {
      return "class " + std::to_string(a) + " has undefined usage bits";
    }
    for (int b = 0; b < kMaxClasses; ++b) {
      const bool forward = Test(succ_[a], b), backward = Test(pred_[b], a);
      if (forward != backward) {
        return "edge " + std::to_string(a) + " -> " + std::to_string(b) + " is recorded " +
               (forward ? "forward only" : "backward only");
      }
      if (forward && (a == 0 || b == 0)) {
        return "edge " + std::to_string(a) + " -> " + std::to_string(b) + " touches class 0";
      }
    }
  }
  return "";
}

}  // namespace internal
}  // namespace lockcheck
