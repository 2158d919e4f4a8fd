// upstream/pages/oracle_test.cc: the oracle gives the worked examples'
// results (worked out by hand from the rules), cuts runs above 512 pages,
// and the input format round-trips.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "upstream/pages/examples.h"
#include "upstream/pages/input.h"
#include "upstream/pages/oracle.h"

namespace pages {
namespace {

TEST(Oracle, WorkedExamples) {
  int checked = 0;
  for (const Example& e : Examples()) {
    std::vector<Set> got;
    if (e.c.helper == Helper::k4k) {
      got = Blocks4k(e.c.pages);
    } else if (e.c.helper == Helper::k8k) {
      got = Blocks8k(e.c.pages);
    } else {
      std::vector<Set> all(e.c.flush_sets, Set{0, 1});
      uint32_t idx = e.c.flush_idx;
      Flush(&all, &idx, e.c.flush_pages);
      EXPECT_EQ(idx, e.c.flush_idx + e.c.flush_pages) << e.name;
      got.assign(all.begin() + e.c.flush_sets, all.end());
    }
    EXPECT_EQ(Describe(got), e.want) << e.name << ": " << DescribeCase(e.c);
    checked++;
  }
  EXPECT_GE(checked, 25);
}

TEST(Oracle, PiecesAreCappedAt512Pages) {
  EXPECT_EQ(FirstPiece(1), 1u);
  EXPECT_EQ(FirstPiece(3), 2u);
  EXPECT_EQ(FirstPiece(512), 512u);
  EXPECT_EQ(FirstPiece(513), 512u);
  EXPECT_EQ(FirstPiece(1023), 512u);
  // Outside a segment's 64 pages (the kernel's callers never get there), the
  // rule still holds in the oracle: 1100 pages are 512 + 512 + 64 + 8 + 4.
  std::vector<uint64_t> v;
  for (int i = 0; i < 1100; i++) v.push_back(kFirstPage + 4096ull * i);
  EXPECT_EQ(Describe(Blocks4k(v)), "{0,512} {512,512} {1024,64} {1088,8} {1096,4} F");
  EXPECT_EQ(Describe(Blocks8k(v)), "{0,512} {512,512} {1024,64} {1088,8} {1096,4} F");
}

TEST(Input, EncodeDecodeRoundTrip) {
  for (const Example& e : Examples()) {
    std::vector<uint8_t> bytes;
    std::string why;
    ASSERT_TRUE(Encode(e.c, &bytes, &why)) << e.name << ": " << why;
    const std::vector<Case> decoded = Decode(bytes.data(), bytes.size());
    bool found = false;
    for (const Case& d : decoded) {
      found |= d.helper == e.c.helper && d.pages == e.c.pages && d.flush_idx == e.c.flush_idx &&
               d.flush_pages == e.c.flush_pages && d.flush_sets == e.c.flush_sets;
    }
    EXPECT_TRUE(found) << e.name;
  }
}

TEST(Input, PageListsRunBothHelpersAndMissingBytesContinueTheRun) {
  const uint8_t bytes[] = {0, 4, 0x80 | 66};  // page 1 two pages up; 2, 3 continue
  const std::vector<Case> d = Decode(bytes, sizeof bytes);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].helper, Helper::k4k);
  EXPECT_EQ(d[1].helper, Helper::k8k);
  EXPECT_EQ(d[0].pages, Runs({{0, 1}, {2, 3}}));
  EXPECT_EQ(Decode(nullptr, 0)[0].pages.size(), 0u);
}

TEST(Input, FlushArgumentsStayInTheKernelsDomain) {
  for (int a = 0; a < 256; a += 7) {
    for (int b = 0; b < 256; b += 5) {
      const uint8_t bytes[] = {1, static_cast<uint8_t>(a), static_cast<uint8_t>(b), 255};
      const Case c = Decode(bytes, sizeof bytes)[0];
      EXPECT_LE(c.flush_idx + c.flush_pages, 64u);
      EXPECT_LE(c.flush_sets, 56u);
    }
  }
}

TEST(Input, EncodeRefusesWhatTheFormatCannotSay) {
  std::vector<uint8_t> bytes;
  std::string why;
  Case c;
  c.pages = Runs({{0, 1}, {100, 1}});
  EXPECT_FALSE(Encode(c, &bytes, &why));
  EXPECT_EQ(why, "a step of more than 64 pages");
  c.pages = Runs({{0, 65}});
  EXPECT_FALSE(Encode(c, &bytes, &why));
}

}  // namespace
}  // namespace pages
