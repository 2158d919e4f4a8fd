// lockcheck/internal/graph.h: the slow paths that learn something new about
// lock classes: a new order edge, a new IRQ usage bit. Each records where it
// was first seen (a raw stack), checks the rules that the new fact can break,
// and reports, at most once per distinct violation.
//
// Rules checked here (lockdep's):
//  * kOrderInversion: the new edge A -> B closes a cycle B -> ... -> A of any
//    length; the report names both orders, each edge with its first stack.
//  * kIrqSafety: a class is both used in hardirq context and taken (or held)
//    with IRQs enabled, whichever was seen first.
//  * kIrqSafeToUnsafe: a dependency path from an IRQ-safe class to an
//    IRQ-unsafe one, whether the last piece is an edge or a usage bit.
//
// The graph mutex is held only inside a TsanIgnoreScope, never across a
// report, and never with another lockcheck mutex.
#ifndef FLOWCHECK_LOCKCHECK_INTERNAL_GRAPH_H_
#define FLOWCHECK_LOCKCHECK_INTERNAL_GRAPH_H_

#include <cstdint>

namespace lockcheck {
namespace internal {

// The calling thread acquires `to_lock` (class `to`) while holding
// `from_lock` (class `from`), and HasEdge(from, to) was false.
void AddDependency(int from, const void* from_lock, int to, const void* to_lock);

// The calling thread uses `lock` (class `cls`) in a way that sets usage bit
// `bit` (classes.h), and HasUsage(cls, bit) was false.
void MarkUsage(int cls, uint8_t bit, const void* lock);

// Forgets every edge and usage bit (ResetForTesting).
void ResetGraph();

}  // namespace internal
}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_INTERNAL_GRAPH_H_
