// common/strings_test.cc: the helpers in common/strings.h.
#include "common/strings.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace flowcheck {
namespace {

TEST(Strings, FormatIsPrintfsAndNeverTruncated) {
  EXPECT_EQ(StrFormat("%d %s %05.1f %" PRIu64 " %zu %x", -3, "a", 2.25, uint64_t{1} << 40,
                      size_t{7}, 255u),
            "-3 a 002.2 1099511627776 7 ff");
  const std::string big(1000, 'x');
  EXPECT_EQ(StrFormat("<%s>", big.c_str()), "<" + big + ">");
  std::string s = "a";
  StrAppendFormat(&s, "%d", 1);
  StrAppendFormat(&s, "%s", big.c_str());
  EXPECT_EQ(s, "a1" + big);
}

TEST(Strings, CatAppendsStringsAndNumbers) {
  std::string_view v = "v";
  EXPECT_EQ(StrCat("a", std::string("b"), v, 12, -3, uint64_t{18446744073709551615u}, 0.5),
            "abv12-3184467440737095516150.5");
  std::string s = "x";
  StrAppend(&s, "y", 1);
  EXPECT_EQ(s, "xy1");
}

TEST(Strings, SplitKeepsEveryPieceAndJoinUndoesIt) {
  EXPECT_EQ(StrSplit("", ','), std::vector<std::string_view>{""});
  EXPECT_EQ(StrSplit("a,,b,", ','), (std::vector<std::string_view>{"a", "", "b", ""}));
  EXPECT_EQ(StrJoin(StrSplit("a,,b,", ','), ","), "a,,b,");
  EXPECT_EQ(StrJoin(std::vector<std::string>{}, ", "), "");
  EXPECT_EQ(StrJoin(std::vector<int>{1, 2}, ", "), "1, 2");
}

TEST(Strings, PrefixesSuffixesAndWhitespace) {
  std::string_view t = "`id`";
  EXPECT_TRUE(ConsumePrefix(&t, "`"));
  EXPECT_FALSE(ConsumePrefix(&t, "`"));
  EXPECT_TRUE(ConsumeSuffix(&t, "`"));
  EXPECT_EQ(t, "id");
  EXPECT_TRUE(StartsWith("abc", "ab"));
  EXPECT_FALSE(StartsWith("a", "ab"));
  EXPECT_TRUE(EndsWith("abc", "bc"));
  EXPECT_FALSE(EndsWith("c", "bc"));
  EXPECT_TRUE(StrContains("abc", "b"));
  EXPECT_EQ(StripAsciiWhitespace(" \t a b \n"), "a b");
  EXPECT_EQ(StripAsciiWhitespace("  "), "");
}

TEST(Strings, JsonQuoteEscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonQuote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonQuote("line\nnext\ttab"), "\"line\\nnext\\ttab\"");
  EXPECT_EQ(JsonQuote(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(JsonQuote("caf\xc3\xa9"), "\"caf\xc3\xa9\"");  // UTF-8 passes through
  EXPECT_EQ(JsonQuote(""), "\"\"");
}

TEST(Strings, NumbersMustFillTheTextAndFitTheType) {
  int i = 0;
  EXPECT_TRUE(SimpleAtoi(" -42 ", &i));
  EXPECT_EQ(i, -42);
  EXPECT_FALSE(SimpleAtoi("4x", &i));
  EXPECT_FALSE(SimpleAtoi("", &i));
  EXPECT_FALSE(SimpleAtoi("2147483648", &i));
  uint32_t u = 0;
  EXPECT_FALSE(SimpleAtoi("-1", &u));
  EXPECT_FALSE(SimpleAtoi("4294967296", &u));
  EXPECT_TRUE(SimpleAtoi("4294967295", &u));
  EXPECT_EQ(u, 4294967295u);
  uint64_t u64 = 0;
  EXPECT_TRUE(SimpleAtoi("18446744073709551615", &u64));
  EXPECT_FALSE(SimpleAtoi("18446744073709551616", &u64));
  int64_t i64 = 0;
  EXPECT_TRUE(SimpleAtoi("-9223372036854775808", &i64));
  double d = 0;
  EXPECT_TRUE(SimpleAtod("0.25", &d));
  EXPECT_EQ(d, 0.25);
  EXPECT_FALSE(SimpleAtod("0.25.", &d));
}

}  // namespace
}  // namespace flowcheck
