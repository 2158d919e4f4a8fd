// upstream/pages/checker_test.cc: CheckCase's rules fire. Fake "kernels"
// (C++ functions with the C entry points' signatures) compute the oracle's
// answer and then break it one way each; CheckCase must name the rule.
// The oracle itself passes (so a rule that fires on correct output fails
// here too).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "upstream/pages/check.h"
#include "upstream/pages/input.h"
#include "upstream/pages/oracle.h"

namespace pages {
namespace {

enum class Break { kNone, kOddCount, kWritePast, kFillerIdx, kAddr, kSplit, kWarn, kSwap8k };
Break g_break = Break::kNone;
unsigned g_warns = 0;

std::vector<uint64_t> Addresses(page** pages, u32 n) {
  std::vector<uint64_t> v;
  for (u32 i = 0; i < n; i++) v.push_back(reinterpret_cast<uintptr_t>(pages[i]));
  return v;
}

u32 Store(const std::vector<Set>& sets, tid_rdma_pageset* list) {
  std::vector<Set> s = sets;
  if (g_break == Break::kSplit && !s.empty() && s[0].count >= 2) {
    // {0,4} {4,1} -> {0,2} {2,2} {4,1} F: still tiles, powers of two,
    // fillers at odd positions.
    if (s.back().filler()) s.pop_back();
    const Set first{s[0].idx, s[0].count / 2};
    s[0] = Set{s[0].idx + first.count, first.count};
    s.insert(s.begin(), first);
    if (s.size() % 2) s.push_back(Set{});
  }
  if (g_break == Break::kOddCount && !s.empty()) s.pop_back();  // neither written nor counted
  for (size_t k = 0; k < s.size(); k++) {
    list[k].count = s[k].count;
    if (!s[k].filler() || g_break == Break::kFillerIdx) list[k].idx = s[k].idx;
    if (g_break == Break::kAddr) list[k].addr = 0;
  }
  const u32 n = static_cast<u32>(s.size());
  if (g_break == Break::kWritePast) list[TID_RDMA_MAX_PAGES + 1].count = 1;
  if (g_break == Break::kWarn) g_warns++;
  return n;
}

u32 Fake4k(tid_rdma_flow*, page** pages, u32 n, tid_rdma_pageset* list) {
  return Store(Blocks4k(Addresses(pages, n)), list);
}
u32 Fake8k(tid_rdma_flow*, page** pages, u32 n, tid_rdma_pageset* list) {
  // kSwap8k: answers with the 4k algorithm (differs on 3 contiguous pages).
  const std::vector<uint64_t> v = Addresses(pages, n);
  return Store(g_break == Break::kSwap8k ? Blocks4k(v) : Blocks8k(v), list);
}
u32 FakeFlush(tid_rdma_pageset* list, u32* idx, u32 pages, u32 sets) {
  std::vector<Set> all(sets, Set{0, 1});
  Flush(&all, idx, pages);
  std::vector<Set> added(all.begin() + sets, all.end());
  return sets + Store(added, list + sets);
}
unsigned Warns() { return g_warns; }
void ResetWarns() { g_warns = 0; }

const KernelPages kFake{"fake", Fake4k, Fake8k, FakeFlush, Warns, ResetWarns};

std::string Check(Break b, Helper h, const std::vector<uint64_t>& pages) {
  g_break = b;
  Case c;
  c.helper = h;
  c.pages = pages;
  const std::string r = CheckCase(kFake, c);
  g_break = Break::kNone;
  return r;
}

std::string Rule(const std::string& report) { return report.substr(0, report.find(':')); }

TEST(Checker, TheOraclesOwnAnswersPass) {
  for (Helper h : {Helper::k4k, Helper::k8k}) {
    EXPECT_EQ(Check(Break::kNone, h, Runs({{0, 7}, {20, 3}, {19, 1}})), "");
    EXPECT_EQ(Check(Break::kNone, h, {}), "");
  }
  Case f;
  f.helper = Helper::kFlush;
  f.flush_idx = 4;
  f.flush_pages = 7;
  f.flush_sets = 3;
  EXPECT_EQ(CheckCase(kFake, f), "");
}

TEST(Checker, EachRuleFiresOnItsBreakage) {
  const std::vector<uint64_t> seven = Runs({{0, 7}});
  EXPECT_EQ(Rule(Check(Break::kOddCount, Helper::k4k, seven)), "P-even");
  EXPECT_EQ(Rule(Check(Break::kWritePast, Helper::k4k, seven)), "P-guard");
  EXPECT_EQ(Rule(Check(Break::kFillerIdx, Helper::k4k, seven)), "P-guard");
  EXPECT_EQ(Rule(Check(Break::kAddr, Helper::k8k, seven)), "P-guard");
  EXPECT_EQ(Rule(Check(Break::kWarn, Helper::k8k, seven)), "WARN");
  // Splitting a piece keeps every rule: only the oracle sees it.
  EXPECT_EQ(Rule(Check(Break::kSplit, Helper::k4k, seven)), "ORACLE");
  EXPECT_EQ(Rule(Check(Break::kSwap8k, Helper::k8k, Runs({{0, 3}}))), "Q-8k");
}

TEST(Checker, TheReportNamesTheHelperTheCaseAndBothResults) {
  const std::string r = Check(Break::kSplit, Helper::k4k, Runs({{0, 4}, {9, 1}}));
  EXPECT_NE(r.find("tid_rdma_find_phys_blocks_4k on 5 pages: A+0 x4, A+9 x1"), std::string::npos)
      << r;
  EXPECT_NE(r.find("kernel: {0,2} {2,2} {4,1} F"), std::string::npos) << r;
  EXPECT_NE(r.find("oracle: {0,4} {4,1}"), std::string::npos) << r;
}

}  // namespace
}  // namespace pages
