// common/check_id.h: the one pattern every checker uses to name what it
// reports. A checker declares an enum of its checks and a table with one row
// per enumerator: the short id its reports carry and a one-line meaning.
//
//   enum class MyCheck { kFoo, kBar, kCount };
//   inline constexpr CheckId<MyCheck> kMyChecks[] = {
//       {MyCheck::kFoo, "foo", "what a foo report means, in one line"},
//       {MyCheck::kBar, "bar", "..."},
//   };
//   static_assert(WellFormedIdTable(kMyChecks), "...");
//   report(IdOf(kMyChecks, MyCheck::kFoo), ...);   // "foo"
//
// Why one table per checker rather than one for the project: each layer
// owns its ids and its table lives with it, so nothing depends upward (core
// knows nothing of stress or fuzz, lockcheck nothing of core). lockcheck/
// report.h holds the lock rules, core/invariants.h CheckInvariants'
// F1-F6/W1-W6, core/reference.h the pure properties of the reference
// formulas, core/caller_checks.h the engine's own checks (its oracle
// included). A layer
// that forwards another's reports (stress forwards CheckInvariants')
// asserts its ids are disjoint from the forwarded ones (DisjointIds), so an
// id names exactly one check. The docs list each table; a test per layer
// compares the doc with the table (common/check_id_doc.h).
//
// Ids are tokens of letters, digits and '-': they appear inside report
// markers such as "flowcheck: FAIL [invariant F1]", which tools parse.
#ifndef FLOWCHECK_COMMON_CHECK_ID_H_
#define FLOWCHECK_COMMON_CHECK_ID_H_

#include <cstddef>

namespace flowcheck {

template <typename Check>
struct CheckId {
  Check check;
  const char* id;       // the token reports carry
  const char* meaning;  // one line: what a report with this id says is wrong
};

// The id of `c`. Requires WellFormedIdTable(table).
template <typename Check, size_t N>
constexpr const char* IdOf(const CheckId<Check> (&table)[N], Check c) {
  return table[static_cast<size_t>(c)].id;
}

namespace check_id_internal {

constexpr bool SameText(const char* a, const char* b) {
  for (; *a != '\0' && *a == *b; ++a, ++b) {
  }
  return *a == *b;
}

constexpr bool IsToken(const char* s) {
  if (*s == '\0') return false;
  for (; *s != '\0'; ++s) {
    const char c = *s;
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-';
    if (!ok) return false;
  }
  return true;
}

constexpr bool HasNoNewlineOrBar(const char* s) {
  for (; *s != '\0'; ++s) {
    if (*s == '\n' || *s == '|') return false;  // one line, and a markdown table cell
  }
  return true;
}

}  // namespace check_id_internal

// Row i describes enumerator i, every enumerator below Check::kCount has a
// row, ids are distinct tokens, meanings non-empty single lines.
template <typename Check, size_t N>
constexpr bool WellFormedIdTable(const CheckId<Check> (&table)[N]) {
  using check_id_internal::HasNoNewlineOrBar;
  using check_id_internal::IsToken;
  using check_id_internal::SameText;
  if (N != static_cast<size_t>(Check::kCount)) return false;
  for (size_t i = 0; i < N; ++i) {
    if (static_cast<size_t>(table[i].check) != i) return false;
    if (!IsToken(table[i].id)) return false;
    if (table[i].meaning[0] == '\0' || !HasNoNewlineOrBar(table[i].meaning)) return false;
    for (size_t j = 0; j < i; ++j) {
      if (SameText(table[i].id, table[j].id)) return false;
    }
  }
  return true;
}

// No id appears in both tables.
template <typename A, size_t N, typename B, size_t M>
constexpr bool DisjointIds(const CheckId<A> (&a)[N], const CheckId<B> (&b)[M]) {
  for (size_t i = 0; i < N; ++i) {
    for (size_t j = 0; j < M; ++j) {
      if (check_id_internal::SameText(a[i].id, b[j].id)) return false;
    }
  }
  return true;
}

}  // namespace flowcheck

#endif  // FLOWCHECK_COMMON_CHECK_ID_H_
