// lockcheck/internal/class_graph.h: the facts lockdep learns about lock
// classes, as a pure graph: order edges "class A was held while class B was
// taken" and per-class IRQ usage bits, with the shortest-path search the
// rules need.
//
// Like abseil's graphcycles, it has no locking of its own (calls into it must
// be serialized externally: graph.cc holds its mutex), no globals, no stacks
// and no reports; the rules, the evidence and the report text live in
// graph.cc. CheckInvariants() is for tests.
//
// Classes are the ids of classes.h: 1..kMaxClasses-1.
#ifndef FLOWCHECK_LOCKCHECK_INTERNAL_CLASS_GRAPH_H_
#define FLOWCHECK_LOCKCHECK_INTERNAL_CLASS_GRAPH_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lockcheck/internal/classes.h"

namespace lockcheck {
namespace internal {

class ClassGraph {
 public:
  enum class Direction { kForward, kBackward };

  // Records the edge from -> to; true if it is new.
  bool AddEdge(int from, int to);
  bool HasEdge(int from, int to) const { return Test(succ_[from], to); }

  // Sets usage bit `bit` (classes.h Usage) of `cls`; true if it is new.
  bool AddUsage(int cls, uint8_t bit);
  bool HasUsage(int cls, uint8_t bits) const { return (usage_[cls] & bits) == bits; }

  // The classes from `start` to the nearest class c with goal(c) (start
  // itself included), following edges forward or against them, among
  // classes below `limit`; empty if none. Breadth-first, so the path is a
  // shortest one: reports stay short.
  std::vector<int> ShortestPath(int start, Direction direction, int limit,
                                const std::function<bool(int)>& goal) const;

  // Forgets every edge and usage bit of the classes below `limit` (only
  // those can have any: ids are handed out in order).
  void Clear(int limit);

  // "" if consistent, else what is wrong: every edge is recorded in both
  // directions and none touches class 0 (ids start at 1); usage holds only
  // the two defined bits.
  std::string CheckInvariants() const;

 private:
  friend class ClassGraphTestPeer;
  using Row = uint64_t[kClassWords];
  static bool Test(const Row& row, int c) { return (row[c >> 6] >> (c & 63)) & 1; }
  static void Set(Row& row, int c) { row[c >> 6] |= uint64_t{1} << (c & 63); }

  uint64_t succ_[kMaxClasses][kClassWords] = {};
  uint64_t pred_[kMaxClasses][kClassWords] = {};
  uint8_t usage_[kMaxClasses] = {};
};

}  // namespace internal
}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_INTERNAL_CLASS_GRAPH_H_
