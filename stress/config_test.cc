// stress/config_test.cc: what a config accepts, and how it says itself again.
#include "stress/config.h"

#include <cmath>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace stress {
namespace {

using ::testing::HasSubstr;

TEST(ValidateTest, TheDefaultsAreValid) { EXPECT_EQ(Validate(StressConfig{}), ""); }

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

}  // namespace
}  // namespace stress
}  // namespace flowcheck
