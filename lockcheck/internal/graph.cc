// lockcheck/internal/graph.cc: see graph.h. The facts are a ClassGraph
// (class_graph.h); this file is the policy around it: the mutex, the
// first-seen stacks, the rules and their reports.
#include "lockcheck/internal/graph.h"

#include <algorithm>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "lockcheck/internal/class_graph.h"
#include "lockcheck/internal/classes.h"
#include "lockcheck/internal/reporting.h"
#include "lockcheck/internal/stack.h"
#include "lockcheck/internal/tsan.h"

namespace lockcheck {
namespace internal {
namespace {

// Only under graph_mu (inside a TsanIgnoreScope): the facts (a pure graph)
// and where each was first seen. g_classes[] mirrors the facts in relaxed
// atomics for the acquire fast path (classes.h), written here only.
struct Graph {
  ClassGraph facts;
  std::unordered_map<uint32_t, StackTrace> edge_first;   // EdgeKey -> stack
  std::unordered_map<uint32_t, StackTrace> usage_first;  // UsageKey -> stack
};

// Constant-initialized globals, never function-local statics (tsan.h).
std::mutex graph_mu;
Graph* graph = nullptr;  // made on first use, never destroyed

// With graph_mu held.
Graph& TheGraph() {
  if (graph == nullptr) graph = new Graph;
  return *graph;
}

uint32_t EdgeKey(int from, int to) {
  return static_cast<uint32_t>(from) * kMaxClasses + static_cast<uint32_t>(to);
}
uint32_t UsageKey(int cls, uint8_t bit) { return static_cast<uint32_t>(cls) * 4 + bit; }

constexpr uint8_t kBothUsages = kUsedInHardirq | kEnabledHardirq;

// The nearest class from `start` (included) satisfying `goal`, along order
// edges (forward) or against them: the classes on the way, or nothing.
std::vector<int> Search(const Graph& g, int start, bool forward,
                        const std::function<bool(int)>& goal) {
  return g.facts.ShortestPath(
      start, forward ? ClassGraph::Direction::kForward : ClassGraph::Direction::kBackward,
      ClassLimit(), goal);
}

// The first-seen stack of each edge of `path`; `new_edge` (index of the edge
// path[i] -> path[i+1] being added now, or -1) gets `here`.
std::vector<StackTrace> EdgeStacks(const Graph& g, const std::vector<int>& path,
                                   int new_edge, const StackTrace& here) {
  std::vector<StackTrace> out;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    if (static_cast<int>(i) == new_edge) {
      out.push_back(here);
      continue;
    }
    auto it = g.edge_first.find(EdgeKey(path[i], path[i + 1]));
    out.push_back(it != g.edge_first.end() ? it->second : StackTrace());
  }
  return out;
}

StackTrace UsageStack(const Graph& g, int cls, uint8_t bit) {
  auto it = g.usage_first.find(UsageKey(cls, bit));
  return it != g.usage_first.end() ? it->second : StackTrace();
}

std::string ChainText(const std::vector<int>& path) {
  std::string s;
  for (size_t i = 0; i < path.size(); ++i) s += (i ? " -> " : "") + std::string(ClassName(path[i]));
  return s;
}

// Each edge of `path` with where it was first seen.
std::string EdgeEvidence(const std::vector<int>& path, const std::vector<StackTrace>& stacks,
                         int new_edge) {
  std::string s;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    s += "    " + std::string(ClassName(path[i])) + " -> " + ClassName(path[i + 1]);
    if (static_cast<int>(i) == new_edge) {
      s += ": the acquisition being reported (stack at the end)\n";
      continue;
    }
    s += ", first seen in " + stacks[i].thread + ":\n" + FormatStack(stacks[i], "        ");
  }
  return s;
}

std::string UsageEvidence(int cls, uint8_t bit, const StackTrace& stack, bool is_now) {
  std::string s = "    " + std::string(ClassName(cls)) +
                  (bit == kUsedInHardirq
                       ? " {IN-HARDIRQ}: taken in hardirq context (IRQ-safe)"
                       : " {HARDIRQ-ON}: taken or held with IRQs enabled (IRQ-unsafe)");
  if (is_now) return s + ", by the acquisition being reported (stack at the end)\n";
  return s + ", first in " + stack.thread + ":\n" + FormatStack(stack, "        ");
}

// A dependency path S -> ... -> U from an IRQ-safe class to an IRQ-unsafe one.
struct SafeToUnsafe {
  std::vector<int> chain;
  std::vector<StackTrace> edge_stacks;
  int new_edge = -1;
  StackTrace safe_use, unsafe_use;
  bool safe_is_now = false, unsafe_is_now = false;
};

void ReportSafeToUnsafe(const SafeToUnsafe& d, int cls, const void* lock) {
  int safe = d.chain.front(), unsafe = d.chain.back();
  if (!ClaimReport(Rule::kIrqSafeToUnsafe, safe, unsafe, nullptr)) return;
  Report r = NewReport(Rule::kIrqSafeToUnsafe, lock, cls);
  r.message =
      "HARDIRQ-safe -> HARDIRQ-unsafe lock order: " + std::string(ClassName(safe)) +
      " is taken in hardirq context, " + ClassName(unsafe) +
      " is taken with IRQs enabled, and " + ClassName(unsafe) + " is taken while " +
      ClassName(safe) + " is held:\n  dependency: " + ChainText(d.chain) + "\n" +
      EdgeEvidence(d.chain, d.edge_stacks, d.new_edge) +
      UsageEvidence(safe, kUsedInHardirq, d.safe_use, d.safe_is_now) +
      UsageEvidence(unsafe, kEnabledHardirq, d.unsafe_use, d.unsafe_is_now) +
      "Deadlock: CPU 0 holds " + ClassName(unsafe) + " with IRQs on; CPU 1 holds " +
      ClassName(safe) + " and waits for " + ClassName(unsafe) +
      "; an interrupt on CPU 0 spins on " + ClassName(safe) + " forever.\n";
  Deliver(r);
}

}  // namespace

void AddDependency(int from, const void* from_lock, int to, const void* to_lock) {
  StackTrace here = CaptureStack();
  std::vector<int> cycle;  // the existing order to -> ... -> from
  std::vector<StackTrace> cycle_stacks;
  SafeToUnsafe irq;
  {
    IgnoredLockGuard guard(graph_mu);
    Graph& g = TheGraph();
    if (g.facts.HasEdge(from, to)) return;  // another thread was first
    cycle = Search(g, to, /*forward=*/true, [from](int c) { return c == from; });
    cycle_stacks = EdgeStacks(g, cycle, -1, here);
    std::vector<int> back = Search(g, from, /*forward=*/false,
                                   [&g](int c) { return g.facts.HasUsage(c, kUsedInHardirq); });
    if (!back.empty()) {
      std::vector<int> fwd = Search(g, to, /*forward=*/true,
                                    [&g](int c) { return g.facts.HasUsage(c, kEnabledHardirq); });
      // S == U is one class in both states: kIrqSafety, reported on its own.
      if (!fwd.empty() && back.back() != fwd.back()) {
        irq.chain.assign(back.rbegin(), back.rend());
        irq.new_edge = static_cast<int>(irq.chain.size()) - 1;
        irq.chain.insert(irq.chain.end(), fwd.begin(), fwd.end());
        irq.edge_stacks = EdgeStacks(g, irq.chain, irq.new_edge, here);
        irq.safe_use = UsageStack(g, irq.chain.front(), kUsedInHardirq);
        irq.unsafe_use = UsageStack(g, irq.chain.back(), kEnabledHardirq);
      }
    }
    g.facts.AddEdge(from, to);
    g_classes[from].succ[to >> 6].fetch_or(uint64_t{1} << (to & 63),
                                           std::memory_order_relaxed);
    g.edge_first.emplace(EdgeKey(from, to), here);
  }

  if (!cycle.empty() &&
      ClaimReport(Rule::kOrderInversion, std::min(from, to), std::max(from, to), nullptr)) {
    Report r = NewReport(Rule::kOrderInversion, to_lock, to);
    r.message = "possible circular locking dependency: " + r.thread + " acquires " +
                LockLabel(to, to_lock) + " while holding " + LockLabel(from, from_lock) +
                ".\n  new order:      " + ClassName(from) + " -> " + ClassName(to) +
                "  (this acquisition; stack at the end)\n  existing order: " +
                ChainText(cycle) + "\n" + EdgeEvidence(cycle, cycle_stacks, -1) +
                "If these orders run at the same time, each thread can hold a lock "
                "another one waits for: deadlock (no deadlock was needed to see it).\n";
    Deliver(r);
  }
  if (!irq.chain.empty()) ReportSafeToUnsafe(irq, to, to_lock);
}

void MarkUsage(int cls, uint8_t bit, const void* lock) {
  StackTrace here = CaptureStack();
  const uint8_t other = kBothUsages & ~bit;
  bool inconsistent = false;
  StackTrace other_use;
  SafeToUnsafe irq;
  {
    IgnoredLockGuard guard(graph_mu);
    Graph& g = TheGraph();
    if (!g.facts.AddUsage(cls, bit)) return;  // another thread was first
    g_classes[cls].usage.fetch_or(bit, std::memory_order_relaxed);
    g.usage_first.emplace(UsageKey(cls, bit), here);
    if (g.facts.HasUsage(cls, other)) {
      inconsistent = true;
      other_use = UsageStack(g, cls, other);
    } else if (bit == kUsedInHardirq) {
      irq.chain = Search(g, cls, /*forward=*/true,
                         [&g](int c) { return g.facts.HasUsage(c, kEnabledHardirq); });
      if (!irq.chain.empty()) {
        irq.safe_use = here;
        irq.safe_is_now = true;
        irq.unsafe_use = UsageStack(g, irq.chain.back(), kEnabledHardirq);
      }
    } else {
      std::vector<int> back = Search(g, cls, /*forward=*/false,
                                     [&g](int c) { return g.facts.HasUsage(c, kUsedInHardirq); });
      if (!back.empty()) {
        irq.chain.assign(back.rbegin(), back.rend());
        irq.safe_use = UsageStack(g, irq.chain.front(), kUsedInHardirq);
        irq.unsafe_use = here;
        irq.unsafe_is_now = true;
      }
    }
    irq.edge_stacks = EdgeStacks(g, irq.chain, -1, here);
  }

  if (inconsistent && ClaimReport(Rule::kIrqSafety, cls, 0, nullptr)) {
    Report r = NewReport(Rule::kIrqSafety, lock, cls);
    r.message =
        std::string("inconsistent {IN-HARDIRQ} -> {HARDIRQ-ON} usage: ") + ClassName(cls) +
        " is taken in hardirq context and also with IRQs enabled outside it.\n" +
        UsageEvidence(cls, kUsedInHardirq, bit == kUsedInHardirq ? here : other_use,
                      bit == kUsedInHardirq) +
        UsageEvidence(cls, kEnabledHardirq, bit == kEnabledHardirq ? here : other_use,
                      bit == kEnabledHardirq) +
        "Deadlock: while a thread holds it with IRQs on, an interrupt on that CPU "
        "spins on it forever. Outside hardirq context take it with "
        "spin_lock_irqsave (or with IRQs already off).\n";
    Deliver(r);
  }
  if (!irq.chain.empty()) ReportSafeToUnsafe(irq, cls, lock);
}

void ResetGraph() {
  IgnoredLockGuard guard(graph_mu);
  Graph& g = TheGraph();
  // Only classes made so far can have edges or usage: the controlled
  // scheduler resets before every execution, and all 1024 cost ~0.4 ms.
  const int n = ClassLimit();
  g.facts.Clear(n);
  for (int c = 0; c < n; ++c) {
    g_classes[c].usage.store(0, std::memory_order_relaxed);
    for (std::atomic<uint64_t>& w : g_classes[c].succ) w.store(0, std::memory_order_relaxed);
  }
  g.edge_first.clear();
  g.usage_first.clear();
}

}  // namespace internal
}  // namespace lockcheck
