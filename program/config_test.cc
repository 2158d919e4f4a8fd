// program/config_test.cc: what a config accepts, and how it says itself again.
#include "program/config.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "gmock/gmock-matchers.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace program {
namespace {

using ::testing::HasSubstr;

TEST(ValidateTest, TheDefaultsAreValid) { EXPECT_EQ(Validate(StressConfig{}), ""); }

TEST(ValidateTest, ProgramOpsNeedDfsWithoutGeneratedPrograms) {
  StressConfig c;
  c.sched_program_ops = 2;
  EXPECT_THAT(Validate(c), HasSubstr("--sched_program_ops needs --sched=dfs"));
  c.sched = "dfs";
  EXPECT_EQ(Validate(c), "");
  c.sched_programs = 5;
  EXPECT_THAT(Validate(c), HasSubstr("no --sched_programs"));
  c.sched_programs = 1;
  c.sched_program_ops = 7;
  EXPECT_THAT(Validate(c), HasSubstr("--sched_program_ops must be in 0..6"));
}

// NaN slips past every range check (each comparison is false), and an
// infinity is a limit that never comes: each float flag rejects both.
TEST(ValidateTest, EveryFloatFlagRejectsNonFiniteValues) {
  const double kNan = std::numeric_limits<double>::quiet_NaN();
  const double kInf = std::numeric_limits<double>::infinity();
  for (double bad : {kNan, kInf, -kInf}) {
    StressConfig c;
    c.seconds = bad;
    EXPECT_THAT(Validate(c), HasSubstr("--seconds must be a finite number")) << bad;
    c = StressConfig{};
    c.yield_probability = bad;
    EXPECT_THAT(Validate(c), HasSubstr("--yield_probability must be a finite number")) << bad;
    c = StressConfig{};
    c.watchdog_seconds = bad;
    EXPECT_THAT(Validate(c), HasSubstr("--watchdog_seconds must be a finite number")) << bad;
    c = StressConfig{};
    c.progress_every = bad;
    EXPECT_THAT(Validate(c), HasSubstr("--progress_every must be a finite number")) << bad;
  }
}

TEST(ValidateTest, RangesStillHold) {
  StressConfig c;
  c.yield_probability = 1.5;
  EXPECT_EQ(Validate(c), "--yield_probability must be in [0, 1]");
  c = StressConfig{};
  c.watchdog_seconds = 0;
  EXPECT_EQ(Validate(c), "--watchdog_seconds must be > 0");
  c = StressConfig{};
  c.progress_every = -1;
  EXPECT_EQ(Validate(c), "--progress_every must be >= 0");
  c = StressConfig{};
  c.seconds = -2;
  EXPECT_EQ(Validate(c), "--seconds must be >= 0");
}

TEST(RandomSeedTest, IsNeverZero) {
  for (int i = 0; i < 100; ++i) EXPECT_NE(RandomSeed(), 0u);
}

// A schedule file's params hold every kParam field and read back as them.
TEST(ConfigParamsTest, EveryParamFieldReadsBack) {
  StressConfig c;
  c.seed = 12345678901234ull;
  c.threads = 9;
  c.contexts = 3;
  c.qps_per_thread = 5;
  c.workers = 4;
  c.irq_thread = false;
  c.bare_per_thread = 2;
  c.flush_handoff = false;
  c.sched_ops = 7;
  c.sched_free_flows = 6;
  const std::map<std::string, std::string> p = ConfigParams(c);
  EXPECT_EQ(p.at("irq_thread"), "0");
  EXPECT_EQ(p.at("seed"), "12345678901234");
  EXPECT_EQ(p.count("seconds"), 0u);  // not a kParam field
  StressConfig back;
  std::string error;
  ASSERT_TRUE(ConfigFromParams(p, &back, &error)) << error;
#define FLOWCHECK_TEST_CHECK(type, name, def, uses, help) \
  if ((uses) & kParam) EXPECT_EQ(back.name, c.name) << #name;
  FLOWCHECK_STRESS_CONFIG_FIELDS(FLOWCHECK_TEST_CHECK)
#undef FLOWCHECK_TEST_CHECK
}

TEST(ConfigParamsTest, AMissingOrBadParamIsNamed) {
  std::map<std::string, std::string> p = ConfigParams(StressConfig{});
  StressConfig c;
  std::string error;
  p["workers"] = "two";
  EXPECT_FALSE(ConfigFromParams(p, &c, &error));
  EXPECT_EQ(error, "param workers: missing or not a number");
  p.erase("workers");
  EXPECT_FALSE(ConfigFromParams(p, &c, &error));
  EXPECT_EQ(error, "param workers: missing or not a number");
  p = ConfigParams(StressConfig{});
  p["threads"] = "4294967300";  // does not fit an int: not read as 4
  EXPECT_FALSE(ConfigFromParams(p, &c, &error));
  EXPECT_EQ(error, "param threads: missing or not a number");
}

}  // namespace
}  // namespace program
}  // namespace flowcheck
