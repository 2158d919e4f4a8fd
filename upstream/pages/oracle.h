// upstream/pages/oracle.h: what the page helpers must return, written from
// the rules in docs/upstream.md ("The page helpers") and NOT from the
// kernel's code: the fuzz target compares the kernel's text with it.
//
// A segment's pages are given by their addresses v[0..n-1] (4 KiB pages);
// page j continues page j-1 when v[j] == v[j-1] + 4096. The result is a list
// of page sets; a set with count 0 is a filler, whose idx means nothing.
// Pure functions, no state, any thread.
#ifndef FLOWCHECK_UPSTREAM_PAGES_ORACLE_H_
#define FLOWCHECK_UPSTREAM_PAGES_ORACLE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace pages {

inline constexpr uint64_t kPageBytes = 4096;
// The largest piece one RcvArray entry takes: 2 MiB of 4 KiB pages.
inline constexpr uint32_t kMaxPiecePages = 512;

struct Set {
  uint32_t idx = 0;    // first page's index (meaningless for a filler)
  uint32_t count = 0;  // pages; 0 = filler
  bool filler() const { return count == 0; }
  bool operator==(const Set& o) const {
    return count == o.count && (count == 0 || idx == o.idx);
  }
};

// "{0,4} {4,1} F" style, as the docs write results.
std::string Describe(const std::vector<Set>& sets);

// The piece a run of `remaining` contiguous pages gives first: 512 when more
// remain, else the largest power of two not above `remaining`. remaining > 0.
uint32_t FirstPiece(uint32_t remaining);

// Appends the pieces of `pages` pages starting at page *idx (advancing *idx),
// then a filler if the list's length is odd (the flush helper's rule).
void Flush(std::vector<Set>* out, uint32_t* idx, uint32_t pages);

// PMTU 4096: maximal runs of contiguous pages, each cut into pieces; a filler
// at the end if the count is odd.
std::vector<Set> Blocks4k(const std::vector<uint64_t>& v);

// Other PMTUs: pages taken two by two (see the .cc for the rule per pair).
std::vector<Set> Blocks8k(const std::vector<uint64_t>& v);

}  // namespace pages

#endif  // FLOWCHECK_UPSTREAM_PAGES_ORACLE_H_
