// stress/flags_test.cc: the command line, parsed without Abseil's exit(1),
// so that stress_main can answer every bad command line with exit 2.
#include "stress/flags.h"

#include <string>
#include <vector>

#include "gmock/gmock-matchers.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace stress {
namespace {

using ::testing::HasSubstr;
using namespace ::flowcheck::program;  // the config and its codecs

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

// A value other than `v`, of its type.
bool Other(bool v) { return !v; }
double Other(double v) { return v + 0.5; }
std::string Other(const std::string& v) { return v + "x"; }
template <typename T>
T Other(T v) { return v + 3; }

// The config table's promise: every field is a flag, and a rerun command
// says every kRerun field that differs from its default, so that its flags
// read back as the same config.
TEST(ParseFlagsTest, TheRerunFlagsOfEveryFieldReadBack) {
  StressConfig c;
  c.seed = 99;
#define FLOWCHECK_TEST_SET(type, name, def, uses, help) \
  if ((uses) & kRerun) c.name = Other(c.name);
  FLOWCHECK_STRESS_CONFIG_FIELDS(FLOWCHECK_TEST_SET)
#undef FLOWCHECK_TEST_SET
  std::vector<std::string> args = RerunFlags(c);
  ASSERT_EQ(Parse(args), "");
  const StressConfig back = ConfigFromFlags();
  EXPECT_EQ(back.seed, 99u);
#define FLOWCHECK_TEST_CHECK(type, name, def, uses, help) \
  if ((uses) & kRerun) EXPECT_EQ(back.name, c.name) << "--" #name;
  FLOWCHECK_STRESS_CONFIG_FIELDS(FLOWCHECK_TEST_CHECK)
#undef FLOWCHECK_TEST_CHECK
  // And the rest of the fields are flags too, with the config's defaults
  // (but --progress_every).
  ASSERT_EQ(Parse({"--json_out=j", "--schedule_out=s/", "--progress_every=0"}), "");
  EXPECT_EQ(ConfigFromFlags().json_out, "j");
  EXPECT_EQ(ConfigFromFlags().schedule_out, "s/");
  EXPECT_EQ(ConfigFromFlags().progress_every, 0);
}

}  // namespace
}  // namespace stress
}  // namespace flowcheck
