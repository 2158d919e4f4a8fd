// upstream/pages/sweep.h: every small case, deterministically (no fuzzer
// needed): the kernel's tests and the injected-bug test run CheckCase on
// each. Header-only (two tests use it).
#ifndef FLOWCHECK_UPSTREAM_PAGES_SWEEP_H_
#define FLOWCHECK_UPSTREAM_PAGES_SWEEP_H_

#include <cstdint>
#include <vector>

#include "upstream/pages/check.h"
#include "upstream/pages/input.h"

namespace pages {

// For both find helpers: every list of up to 8 pages whose steps are +1
// (contiguous), +2 (a gap), 0 (the same page again) or -1 (backwards); every
// list of 9 to 64 pages with one gap anywhere; with two gaps anywhere for
// 9-16 pages and around the powers of two 32 and 64 (31-33, 62-64 pages). For the flush
// helper: every idx + pages <= 64 with 0, 1, 2, 3, 55 or 56 sets before.
inline std::vector<Case> SmallCases() {
  std::vector<Case> cases;
  auto add_lists = [&cases](const std::vector<uint64_t>& v) {
    for (Helper h : {Helper::k4k, Helper::k8k}) {
      Case c;
      c.helper = h;
      c.pages = v;
      cases.push_back(c);
    }
  };
  const int64_t steps[] = {1, 2, 0, -1};
  for (int n = 0; n <= 8; n++) {
    int combos = 1;
    for (int i = 1; i < n; i++) combos *= 4;
    for (int k = 0; k < combos; k++) {
      std::vector<uint64_t> v;
      int code = k;
      for (int i = 0; i < n; i++) {
        if (i == 0) {
          v.push_back(kFirstPage);
          continue;
        }
        v.push_back(v.back() + static_cast<uint64_t>(steps[code % 4] * 4096));
        code /= 4;
      }
      add_lists(v);
    }
  }
  for (int n = 9; n <= 64; n++) {
    const bool two_gaps = n <= 16 || (n >= 31 && n <= 33) || n >= 62;
    for (int a = 0; a < n; a++) {
      for (int b = two_gaps ? a : 0; b < (two_gaps ? n : 1); b++) {  // gaps before a, b (0: none)
        std::vector<uint64_t> v;
        for (int i = 0; i < n; i++) {
          if (i == 0) {
            v.push_back(kFirstPage);
          } else {
            v.push_back(v.back() + ((i == a || i == b) ? 2 * 4096 : 4096));
          }
        }
        add_lists(v);
      }
    }
  }
  for (uint32_t idx = 0; idx <= 64; idx++) {
    for (uint32_t p = 0; idx + p <= 64; p++) {
      for (uint32_t sets : {0u, 1u, 2u, 3u, 55u, 56u}) {
        Case c;
        c.helper = Helper::kFlush;
        c.flush_idx = idx;
        c.flush_pages = p;
        c.flush_sets = sets;
        cases.push_back(c);
      }
    }
  }
  return cases;
}

}  // namespace pages

#endif  // FLOWCHECK_UPSTREAM_PAGES_SWEEP_H_
