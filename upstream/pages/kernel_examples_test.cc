// upstream/pages/kernel_examples_test.cc: the kernel's own page helpers
// (tid_rdma.c's text compiled as C) give the worked examples' results, and
// pass CheckCase (the rules and the oracle) on every small case.
#include <string>

#include "gtest/gtest.h"
#include "upstream/pages/check.h"
#include "upstream/pages/examples.h"
#include "upstream/pages/input.h"
#include "upstream/pages/oracle.h"
#include "upstream/pages/real_kernel.h"
#include "upstream/pages/sweep.h"

namespace pages {
namespace {

// The kernel's sets for an example, Describe()d (flush: the sets appended).
std::string KernelResult(const Example& e) {
  const KernelPages k = RealKernel();
  tid_rdma_pageset list[TID_RDMA_MAX_PAGES] = {};
  rvt_qp qp{};
  tid_rdma_request req{&qp};
  tid_rdma_flow flow{&req};
  std::vector<page*> pages;
  for (uint64_t a : e.c.pages) pages.push_back(reinterpret_cast<page*>(static_cast<uintptr_t>(a)));
  pages.push_back(nullptr);
  const uint32_t n = static_cast<uint32_t>(e.c.pages.size());
  uint32_t first = 0;
  uint32_t count = 0;
  if (e.c.helper == Helper::k4k) {
    count = k.blocks_4k(&flow, pages.data(), n, list);
  } else if (e.c.helper == Helper::k8k) {
    count = k.blocks_8k(&flow, pages.data(), n, list);
  } else {
    uint32_t idx = e.c.flush_idx;
    first = e.c.flush_sets;
    count = k.flush(list, &idx, e.c.flush_pages, e.c.flush_sets);
  }
  std::vector<Set> sets;
  for (uint32_t i = first; i < count && i < TID_RDMA_MAX_PAGES; i++) {
    sets.push_back(Set{list[i].idx, list[i].count});
  }
  return Describe(sets);
}

TEST(KernelPages, WorkedExamples) {
  for (const Example& e : Examples()) {
    EXPECT_EQ(KernelResult(e), e.want) << e.name << ": " << DescribeCase(e.c);
    EXPECT_EQ(CheckCase(RealKernel(), e.c), "") << e.name;
  }
}

TEST(KernelPages, EverySmallCasePassesTheRulesAndTheOracle) {
  const std::vector<Case> cases = SmallCases();
  ASSERT_GT(cases.size(), 70000u);
  int failures = 0;
  for (const Case& c : cases) {
    const std::string report = CheckCase(RealKernel(), c);
    if (!report.empty() && ++failures <= 5) ADD_FAILURE() << report;
  }
  EXPECT_EQ(failures, 0) << "of " << cases.size() << " cases";
}

// Outside the kernel's domain (a segment is at most 64 pages), shown for
// docs/upstream.md: tid_rdma_pageset.count is 7 bits wide, so a piece of
// 128 pages, which the rules allow (up to 512), is stored as count 0, a
// filler. The 512-page cap of the helpers can therefore never take effect
// with this struct; within 64 pages nothing is lost.
TEST(KernelPages, BeyondASegmentA128PagePieceDoesNotFitTheSevenBitCount) {
  const KernelPages k = RealKernel();
  std::vector<page*> pages;
  for (int i = 0; i < 128; i++) {
    pages.push_back(reinterpret_cast<page*>(static_cast<uintptr_t>(kFirstPage + 4096ull * i)));
  }
  std::vector<uint64_t> addrs;
  for (page* p : pages) addrs.push_back(reinterpret_cast<uintptr_t>(p));
  EXPECT_EQ(Describe(Blocks4k(addrs)), "{0,128} F");  // what the rules say
  for (auto fn : {k.blocks_4k, k.blocks_8k}) {
    std::vector<tid_rdma_pageset> list(130);
    rvt_qp qp{};
    tid_rdma_request req{&qp};
    tid_rdma_flow flow{&req};
    ASSERT_EQ(fn(&flow, pages.data(), 128, list.data()), 2u);
    EXPECT_EQ(list[0].idx, 0u);
    EXPECT_EQ(list[0].count, 0u);  // 128 in 7 bits
  }
}

}  // namespace
}  // namespace pages
