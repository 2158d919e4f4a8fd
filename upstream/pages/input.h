// upstream/pages/input.h: the byte format of pages_fuzz inputs (the one
// decoder and encoder of this target; docs/upstream.md, "The page helpers").
//
//   byte 0, bit 0 = 0: a page list, run through BOTH find_phys_blocks helpers
//     byte 1          npages = byte % 65 (0..64)
//     byte 1 + i      page i (i = 1..npages-1): < 0x80 continues page i-1
//                     (+4096); else the page is (byte & 0x7F) - 64 pages away
//                     from page i-1 (-64..63; 1 continues, 0 repeats it)
//                     missing bytes continue the run
//   byte 0, bit 0 = 1: one tid_flush_pages call
//     byte 1 idx = byte % 65; byte 2 pages = byte % (65 - idx);
//     byte 3 sets already in the list = byte % 57 (missing bytes: 0)
// Page 0 is at kFirstPage. Every input decodes (the empty one: no pages);
// bytes past the ones named are ignored.
#ifndef FLOWCHECK_UPSTREAM_PAGES_INPUT_H_
#define FLOWCHECK_UPSTREAM_PAGES_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "upstream/pages/check.h"

namespace pages {

// A kernel linear-map style address: far from 0 and from wrapping.
inline constexpr uint64_t kFirstPage = 0xffff888100000000ull;

std::vector<Case> Decode(const uint8_t* data, size_t size);

// The bytes Decode turns into `c` (a page-list case also runs the other
// find_phys_blocks helper). False, with *why, when `c` is outside the format
// (page 0 not at kFirstPage, a step of more than 64 pages, too many pages).
bool Encode(const Case& c, std::vector<uint8_t>* out, std::string* why);

// Pages from runs: {{0, 3}, {10, 2}} is 3 contiguous pages at kFirstPage,
// then 2 contiguous pages 10 pages above it.
std::vector<uint64_t> Runs(const std::vector<std::pair<int, int>>& runs);

}  // namespace pages

#endif  // FLOWCHECK_UPSTREAM_PAGES_INPUT_H_
