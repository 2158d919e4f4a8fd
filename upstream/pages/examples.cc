// upstream/pages/examples.cc: see examples.h. Page lists are written as runs
// of contiguous pages (Runs()): {start, length} in pages from page 0.
#include "upstream/pages/examples.h"

#include "upstream/pages/input.h"

namespace pages {
namespace {

Case Pages(Helper h, const std::vector<std::pair<int, int>>& runs) {
  Case c;
  c.helper = h;
  c.pages = Runs(runs);
  return c;
}

Case FlushCase(uint32_t idx, uint32_t pages, uint32_t sets) {
  Case c;
  c.helper = Helper::kFlush;
  c.flush_idx = idx;
  c.flush_pages = pages;
  c.flush_sets = sets;
  return c;
}

}  // namespace

std::vector<Example> Examples() {
  const Helper k4 = Helper::k4k;
  const Helper k8 = Helper::k8k;
  return {
      {"no-pages", Pages(k4, {}), "(none)"},
      {"no-pages", Pages(k8, {}), "(none)"},
      {"one-page", Pages(k4, {{0, 1}}), "{0,1} F"},
      {"one-page", Pages(k8, {{0, 1}}), "{0,1} F"},
      {"64-contiguous", Pages(k4, {{0, 64}}), "{0,64} F"},
      {"64-contiguous", Pages(k8, {{0, 64}}), "{0,64} F"},
      {"5-contiguous", Pages(k4, {{0, 5}}), "{0,4} {4,1}"},
      {"6-contiguous", Pages(k4, {{0, 6}}), "{0,4} {4,2}"},
      {"6-contiguous", Pages(k8, {{0, 6}}), "{0,4} {4,2}"},
      {"7-contiguous", Pages(k4, {{0, 7}}), "{0,4} {4,2} {6,1} F"},
      // The two algorithms differ here: 8k flushes before a lone last page.
      {"3-contiguous", Pages(k4, {{0, 3}}), "{0,2} {2,1}"},
      {"3-contiguous", Pages(k8, {{0, 3}}), "{0,2} F {2,1} F"},
      {"3-apart", Pages(k4, {{0, 1}, {10, 1}, {20, 1}}), "{0,1} {1,1} {2,1} F"},
      {"2-then-3", Pages(k4, {{0, 2}, {10, 3}}), "{0,2} {2,2} {4,1} F"},
      {"2-then-2", Pages(k8, {{0, 2}, {10, 2}}), "{0,2} F {2,2} F"},
      {"2-apart", Pages(k8, {{0, 1}, {5, 1}}), "{0,1} {1,1}"},
      {"4-then-1", Pages(k8, {{0, 4}, {10, 1}}), "{0,4} F {4,1} F"},
      // Worked out from the rules for this project (not in the tables above).
      {"descending", Pages(k4, {{0, 1}, {-1, 1}, {-2, 1}}), "{0,1} {1,1} {2,1} F"},
      {"repeated-page", Pages(k4, {{0, 1}, {0, 2}}), "{0,1} {1,2}"},
      {"repeated-page", Pages(k8, {{0, 1}, {0, 2}}), "{0,1} {1,1} {2,1} F"},
      // A pair split across two runs: pages 1 and 2 are not contiguous.
      {"odd-break", Pages(k8, {{0, 1}, {10, 4}}), "{0,1} {1,1} {2,2} F {4,1} F"},
      {"odd-break", Pages(k4, {{0, 1}, {10, 4}}), "{0,1} {1,4}"},
      // Two contiguous pairs that do not continue each other, then one that does.
      {"pairs-jump", Pages(k8, {{0, 2}, {20, 4}}), "{0,2} F {2,4} F"},
      {"63-contiguous", Pages(k4, {{0, 63}}), "{0,32} {32,16} {48,8} {56,4} {60,2} {62,1}"},
      {"63-contiguous", Pages(k8, {{0, 63}}), "{0,32} {32,16} {48,8} {56,4} {60,2} F {62,1} F"},
      {"flush-6", FlushCase(0, 6, 0), "{0,4} {4,2}"},
      {"flush-none-odd", FlushCase(0, 0, 1), "F"},
      {"flush-none-even", FlushCase(3, 0, 2), "(none)"},
      {"flush-7-at-4", FlushCase(4, 7, 2), "{4,4} {8,2} {10,1} F"},
  };
}

}  // namespace pages
