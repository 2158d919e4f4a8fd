// upstream/pages/check.cc: see check.h.
#include "upstream/pages/check.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>

namespace pages {
namespace {

constexpr uint32_t kListSets = TID_RDMA_MAX_PAGES;
constexpr uint32_t kGuardSets = 8;  // written only by a helper that overruns

// What every entry holds before the call: values no helper writes in its
// domain (idx <= 64, count <= 64), different per entry.
tid_rdma_pageset Poison(uint32_t k) {
  tid_rdma_pageset p;
  std::memset(&p, 0, sizeof p);
  p.addr = 0xA5A5A5A50000ull + k;
  p.idx = 0xEE;
  p.count = 0x7F;
  p.mapped = 1;
  return p;
}

bool SameBytes(const tid_rdma_pageset& a, const tid_rdma_pageset& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

bool PowerOfTwo(uint32_t n) {
  for (uint32_t p = 1; p != 0 && p <= n; p <<= 1) {
    if (p == n) return true;
  }
  return false;
}

std::string Fmt(const char* f, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

struct Run {
  std::vector<Set> sets;  // as returned (the kernel's list up to the count)
  uint32_t returned = 0;
  uint32_t idx_after = 0;  // kFlush
  std::string broken;      // a P-guard finding, if any
};

Run Call(const KernelPages& k, const Case& c) {
  const uint32_t total = kListSets + kGuardSets;
  std::unique_ptr<tid_rdma_pageset[]> list(new tid_rdma_pageset[total]);
  for (uint32_t i = 0; i < total; i++) list[i] = Poison(i);
  rvt_qp qp{};
  tid_rdma_request req{&qp};
  tid_rdma_flow flow{&req};
  std::vector<page*> pages;
  for (uint64_t a : c.pages) pages.push_back(reinterpret_cast<page*>(static_cast<uintptr_t>(a)));
  pages.push_back(nullptr);  // never read: data() of an empty vector stays valid
  const uint32_t n = static_cast<uint32_t>(c.pages.size());
  Run r;
  switch (c.helper) {
    case Helper::k4k:
      r.returned = k.blocks_4k(&flow, pages.data(), n, list.get());
      break;
    case Helper::k8k:
      r.returned = k.blocks_8k(&flow, pages.data(), n, list.get());
      break;
    case Helper::kFlush: {
      uint32_t idx = c.flush_idx;
      r.returned = k.flush(list.get(), &idx, c.flush_pages, c.flush_sets);
      r.idx_after = idx;
      break;
    }
  }
  if (r.returned > kListSets) {
    r.broken = Fmt("P-guard: returned %" PRIu64 " sets, the list holds %" PRIu64, r.returned,
                   kListSets);
  }
  const uint32_t first_written = c.helper == Helper::kFlush ? c.flush_sets : 0;
  for (uint32_t i = 0; i < total; i++) {
    const bool in_result = i >= first_written && i < r.returned;
    const tid_rdma_pageset want = Poison(i);
    const tid_rdma_pageset& got = list[i];
    if (!in_result) {
      if (!SameBytes(got, want) && r.broken.empty()) {
        r.broken = Fmt("P-guard: entry %" PRIu64 " written but outside the result [%" PRIu64
                       ", %" PRIu64 ")",
                       i, first_written, r.returned);
      }
      continue;
    }
    if ((got.addr != want.addr || got.mapped != want.mapped) && r.broken.empty()) {
      r.broken = Fmt("P-guard: entry %" PRIu64 ": addr or mapped written", i);
    }
    if (got.count == 0 && got.idx != want.idx && r.broken.empty()) {
      r.broken = Fmt("P-guard: entry %" PRIu64 " is a filler but its idx was written (%" PRIu64
                     ")",
                     i, got.idx);
    }
    r.sets.push_back(Set{got.idx, got.count});
  }
  return r;
}

// The rules of check.h on the kernel's sets alone; "" if all hold.
std::string Rules(const Case& c, const std::vector<Set>& s) {
  const uint32_t n = static_cast<uint32_t>(c.pages.size());
  if (s.size() % 2 != 0) return Fmt("P-even: %" PRIu64 " sets", s.size());
  if (n == 0 && !s.empty()) return "P-empty: sets for no pages";
  if (s.size() > n + n % 2) {
    return Fmt("P-bound: %" PRIu64 " sets for %" PRIu64 " pages", s.size(), n);
  }
  uint32_t next = 0;
  for (size_t k = 0; k < s.size(); k++) {
    if (s[k].filler()) {
      if (k % 2 == 0) return Fmt("P-filler: a filler at position %" PRIu64, k);
      continue;
    }
    if (s[k].idx != next) {
      return Fmt("P-tile: set %" PRIu64 " starts at page %" PRIu64 ", expected %" PRIu64, k,
                 s[k].idx, next);
    }
    if (!PowerOfTwo(s[k].count) || s[k].count > kMaxPiecePages) {
      return Fmt("P-pow2: set %" PRIu64 " has %" PRIu64 " pages", k, s[k].count);
    }
    if (s[k].idx + s[k].count > n) {
      return Fmt("P-tile: set %" PRIu64 " runs past page %" PRIu64, k, n);
    }
    for (uint32_t j = s[k].idx + 1; j < s[k].idx + s[k].count; j++) {
      if (c.pages[j] != c.pages[j - 1] + kPageBytes) {
        return Fmt("P-contig: set %" PRIu64 " spans a break before page %" PRIu64, k, j);
      }
    }
    next = s[k].idx + s[k].count;
    if (c.helper == Helper::k8k) {
      if (s[k].count >= 2 && (s[k].idx % 2 != 0 || s[k].count % 2 != 0)) {
        return Fmt("Q-8k: set %" PRIu64 " of %" PRIu64 " pages at page %" PRIu64, k, s[k].count,
                   s[k].idx);
      }
      if (s[k].count == 1 && k % 2 == 0) {
        const Set& after = s[k + 1];
        if (!after.filler() && !(after.count == 1 && after.idx == s[k].idx + 1)) {
          return Fmt("Q-8k: single page %" PRIu64 " at position %" PRIu64
                     " not followed by the next page or a filler",
                     s[k].idx, k);
        }
      }
      if (s[k].count == 1 && k % 2 == 1 && !(s[k - 1].count == 1)) {
        return Fmt("Q-8k: single page %" PRIu64 " at odd position %" PRIu64
                   " without a single page before it",
                   s[k].idx, k);
      }
    }
  }
  if (next != n) return Fmt("P-tile: the sets cover %" PRIu64 " of %" PRIu64 " pages", next, n);
  return "";
}

std::string FlushRules(const Case& c, const Run& r) {
  const std::vector<Set>& s = r.sets;
  if (r.idx_after != c.flush_idx + c.flush_pages) {
    return Fmt("F-flush: *idx is %" PRIu64 ", expected %" PRIu64, r.idx_after,
               c.flush_idx + c.flush_pages);
  }
  if ((c.flush_sets + s.size()) % 2 != 0) {
    return Fmt("F-flush: odd count %" PRIu64 " after the flush", c.flush_sets + s.size());
  }
  uint32_t next = c.flush_idx;
  for (size_t k = 0; k < s.size(); k++) {
    if (s[k].filler()) {
      if (k + 1 != s.size()) return Fmt("F-flush: a filler before the end (set %" PRIu64 ")", k);
      continue;
    }
    if (s[k].idx != next || !PowerOfTwo(s[k].count) || s[k].count > kMaxPiecePages) {
      return Fmt("F-flush: set %" PRIu64 " {%" PRIu64 ",%" PRIu64 "} does not continue the pieces",
                 k, s[k].idx, s[k].count);
    }
    next += s[k].count;
  }
  if (next != c.flush_idx + c.flush_pages) return "F-flush: the pieces do not cover the pages";
  return "";
}

}  // namespace

const char* HelperName(Helper h) {
  switch (h) {
    case Helper::k4k:
      return "tid_rdma_find_phys_blocks_4k";
    case Helper::k8k:
      return "tid_rdma_find_phys_blocks_8k";
    case Helper::kFlush:
      return "tid_flush_pages";
  }
  return "?";
}

std::string DescribeCase(const Case& c) {
  std::string s = HelperName(c.helper);
  if (c.helper == Helper::kFlush) {
    return s + Fmt("(idx=%" PRIu64 ", pages=%" PRIu64 ", sets=%" PRIu64 ")", c.flush_idx,
                   c.flush_pages, c.flush_sets);
  }
  s += Fmt(" on %" PRIu64 " pages:", c.pages.size());
  // Runs of contiguous pages, each as "start+length" in pages from page 0's
  // address ("A" below): "A+0 x3, A+9 x1" is 3 contiguous pages, then one
  // page 9 pages above A.
  for (size_t j = 0; j < c.pages.size();) {
    size_t e = j + 1;
    while (e < c.pages.size() && c.pages[e] == c.pages[e - 1] + kPageBytes) e++;
    const int64_t off =
        static_cast<int64_t>(c.pages[j] - c.pages[0]) / static_cast<int64_t>(kPageBytes);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s A%+" PRId64 " x%zu", j == 0 ? "" : ",", off, e - j);
    s += buf;
    j = e;
  }
  return s;
}

std::string CheckCase(const KernelPages& k, const Case& c) {
  k.warn_reset();
  const Run r = Call(k, c);
  std::vector<Set> want;
  std::string broken = r.broken;
  if (c.helper == Helper::kFlush) {
    uint32_t idx = c.flush_idx;
    std::vector<Set> all(c.flush_sets, Set{0, 1});  // stand-ins: only the count matters
    Flush(&all, &idx, c.flush_pages);
    want.assign(all.begin() + c.flush_sets, all.end());
    if (broken.empty()) broken = FlushRules(c, r);
  } else {
    want = c.helper == Helper::k4k ? Blocks4k(c.pages) : Blocks8k(c.pages);
    if (broken.empty()) broken = Rules(c, r.sets);
  }
  if (broken.empty() && k.warn_count() != 0) broken = "WARN: the kernel's WARN_ON fired";
  if (broken.empty() && r.sets != want) broken = "ORACLE: the kernel's sets differ from the oracle's";
  if (broken.empty()) return "";
  return broken + "\n  build:  " + k.name + "\n  case:   " + DescribeCase(c) +
         "\n  kernel: " + Describe(r.sets) + Fmt(" (returned %" PRIu64 ")", r.returned) +
         "\n  oracle: " + Describe(want) + "\n";
}

}  // namespace pages
