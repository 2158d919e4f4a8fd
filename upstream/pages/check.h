// upstream/pages/check.h: runs one build of the kernel's page helpers on a
// case and judges the result: the rules every result obeys (below), then
// equality with the oracle (oracle.h). The fuzz target, the worked-example
// test and the injected-bug test all judge through CheckCase.
//
// Rules checked on the kernel's output alone (ids used in reports):
//   P-guard    nothing written past the returned count (a guard zone past
//              the 64-entry list included); no field but idx/count written;
//              a filler's idx left as it was
//   P-even     an even number of sets          P-empty   0 pages: 0 sets
//   P-tile     the non-filler sets cover the pages once each, in order
//   P-pow2     each count a power of two, at most 512
//   P-contig   a set covers only contiguous pages
//   P-bound    at most npages rounded up to even sets (so <= 64)
//   P-filler   fillers only at odd positions
//   Q-8k       (8k only) a set of 2+ pages starts at an even page and has an
//              even count; a single page at an even position is followed by
//              the next page's single set or a filler
//   F-flush    (flush) *idx advanced by the pages; sets before the old count
//              untouched; pieces tile [idx, idx + pages); even count after
//   WARN       the kernel's WARN_ON fired
//   ORACLE     the result differs from the oracle's
// Not thread-safe (the kernel builds' WARN_ON counters are plain globals).
#ifndef FLOWCHECK_UPSTREAM_PAGES_CHECK_H_
#define FLOWCHECK_UPSTREAM_PAGES_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "upstream/pages/kernel_pages.h"
#include "upstream/pages/oracle.h"

namespace pages {

// One build of the helpers (the real text, or a mutant's).
struct KernelPages {
  const char* name;
  kernel_find_phys_blocks_fn blocks_4k;
  kernel_find_phys_blocks_fn blocks_8k;
  kernel_flush_pages_fn flush;
  unsigned (*warn_count)(void);
  void (*warn_reset)(void);
};

enum class Helper { k4k, k8k, kFlush };
const char* HelperName(Helper h);

struct Case {
  Helper helper = Helper::k4k;
  std::vector<uint64_t> pages;  // k4k, k8k: the page addresses (<= 64, never 0)
  uint32_t flush_idx = 0;       // kFlush: *idx on entry
  uint32_t flush_pages = 0;     // kFlush: pages to flush (idx + pages <= 64)
  uint32_t flush_sets = 0;      // kFlush: sets already in the list (<= 56)
};

// "" when the case passes; otherwise a report: the rule id first
// ("P-tile: ..."), the case, the kernel's and the oracle's sets.
std::string CheckCase(const KernelPages& k, const Case& c);

// The case in a line (helper, pages as runs of contiguous pages).
std::string DescribeCase(const Case& c);

}  // namespace pages

#endif  // FLOWCHECK_UPSTREAM_PAGES_CHECK_H_
