// stress/flags_test.cc: the command line, parsed without Abseil's exit(1),
// so that stress_main can answer every bad command line with exit 2.
#include "stress/flags.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace stress {
namespace {

using ::testing::HasSubstr;

std::string Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "stress_main");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return ParseFlags(static_cast<int>(argv.size()), argv.data());
}

TEST(ParseFlagsTest, ReadsEveryFormAbseilAccepts) {
  ASSERT_EQ(Parse({"--seed=77", "-threads=3", "--contexts", "2", "--noirq_thread",
                   "--flush_handoff", "--json_out=out/x.json", "--yield_probability=0.25"}),
            "");
  const StressConfig c = ConfigFromFlags();
  EXPECT_EQ(c.seed, 77u);
  EXPECT_EQ(c.threads, 3);
  EXPECT_EQ(c.contexts, 2);
  EXPECT_FALSE(c.irq_thread);
  EXPECT_TRUE(c.flush_handoff);
  EXPECT_EQ(c.json_out, "out/x.json");
  EXPECT_EQ(c.yield_probability, 0.25);
  ASSERT_EQ(Parse({"--irq_thread=true", "--contexts=1", "--threads=4"}), "");
  EXPECT_TRUE(ConfigFromFlags().irq_thread);
}

TEST(ParseFlagsTest, ABadValueIsAnErrorNotAnExit) {
  EXPECT_THAT(Parse({"--seed=abc"}), HasSubstr("bad value for --seed: "));
  EXPECT_THAT(Parse({"--seed=abc"}), HasSubstr("'abc'"));
  EXPECT_THAT(Parse({"--threads=4.5"}), HasSubstr("bad value for --threads"));
  EXPECT_THAT(Parse({"--irq_thread=maybe"}), HasSubstr("bad value for --irq_thread"));
}

TEST(ParseFlagsTest, UnknownFlagsAndStrayArgumentsAreErrors) {
  EXPECT_EQ(Parse({"--bogus=1"}), "unknown flag '--bogus=1' (see --helpfull)");
  EXPECT_THAT(Parse({"--nothreads"}), HasSubstr("unknown flag"));  // not a boolean
  EXPECT_THAT(Parse({"--flagfile=/tmp/f"}), HasSubstr("unknown flag"));  // not ours
  EXPECT_THAT(Parse({"60"}), HasSubstr("unexpected argument '60'"));
  EXPECT_THAT(Parse({"--", "--seed=1"}), HasSubstr("unexpected argument '--'"));
  EXPECT_EQ(Parse({"--seconds"}), "missing value for --seconds");
}

// Abseil parses "nan" as a double: the value reaches Validate (config.h),
// which rejects it.
TEST(ParseFlagsTest, NonFiniteNumbersParseAndAreLeftToValidate) {
  ASSERT_EQ(Parse({"--yield_probability=nan", "--seconds=inf"}), "");
  const StressConfig c = ConfigFromFlags();
  EXPECT_THAT(Validate(c), HasSubstr("must be a finite number"));
  ASSERT_EQ(Parse({"--yield_probability=0.05", "--seconds=0"}), "");
  EXPECT_EQ(Validate(ConfigFromFlags()), "");
}

}  // namespace
}  // namespace stress
}  // namespace flowcheck
