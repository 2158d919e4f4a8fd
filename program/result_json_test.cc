// program/result_json_test.cc: the JSON documents' contract (result_json.h):
// "result", "seed" and "rerun" first in each, valid JSON strings and
// numbers only.
#include "program/result_json.h"

#include <csignal>
#include <limits>
#include <string>

#include "gmock/gmock-matchers.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace program {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

StressResult SomeResult() {
  StressResult r;
  r.config.seed = 42;
  r.config.threads = 3;
  r.seconds = 2.5;
  r.ops = 1000;
  r.checks = 1001;
  r.quiescent_points = 4;
  r.counters["setup_ok"] = 7;
  r.divergences["W5"] = "[R-1] drift";
  return r;
}

TEST(JsonNumberTest, FiniteNumbersReadBackNonFiniteAreNull) {
  EXPECT_EQ(JsonNumber(0.05), "0.05");
  EXPECT_EQ(JsonNumber(2), "2");
  EXPECT_EQ(JsonNumber(12345.678), "12345.678");
  EXPECT_EQ(JsonNumber(std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(JsonNumber(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(JsonNumber(-std::numeric_limits<double>::infinity()), "null");
}

TEST(ResultJsonTest, APassStartsWithTheContractAndCarriesTheFigures) {
  const std::string json = ResultJson(SomeResult());
  EXPECT_THAT(json, StartsWith("{\n  \"result\": \"pass\",\n  \"seed\": 42,\n  \"rerun\": \""
                               "bazel run "));
  EXPECT_THAT(json, HasSubstr("--seed=42 --threads=3\",\n"));
  EXPECT_THAT(json, HasSubstr("\"seconds\": 2.5,\n"));
  EXPECT_THAT(json, HasSubstr("\"ops_per_second\": 400,\n"));
  EXPECT_THAT(json, HasSubstr("\"checks_passed\": {\"per_op\": 1001, \"quiescent_points\": 4, "
                              "\"final\": 1}"));
  EXPECT_THAT(json, HasSubstr("\"counters\": {\"setup_ok\": 7}"));
  EXPECT_THAT(json, HasSubstr("\"upstream_divergences\": [\"W5\"]\n}\n"));
  EXPECT_THAT(json, Not(HasSubstr("interrupted")));
}

// A NaN that reached the writer (the flags reject it, result_json does not
// rely on that) must not produce invalid JSON.
TEST(ResultJsonTest, NeverEmitsNanOrInfinity) {
  StressResult r = SomeResult();
  r.config.yield_probability = std::numeric_limits<double>::quiet_NaN();
  r.seconds = std::numeric_limits<double>::infinity();
  const std::string json = ResultJson(r);
  EXPECT_THAT(json, HasSubstr("\"yield_probability\": null,"));
  EXPECT_THAT(json, HasSubstr("\"seconds\": null,"));
  EXPECT_THAT(json, Not(HasSubstr(": nan")));
  EXPECT_THAT(json, Not(HasSubstr(": inf")));
}

TEST(ResultJsonTest, AnInterruptedRunSaysSoAndBySignal) {
  const std::string json = ResultJson(SomeResult(), SIGINT);
  EXPECT_THAT(json, StartsWith("{\n  \"result\": \"interrupted\",\n  \"seed\": 42,\n"));
  EXPECT_THAT(json, HasSubstr("\"interrupted_by\": \"SIGINT\",\n"));
  EXPECT_THAT(InterruptedJson(SIGTERM, "gone", SomeResult().config),
              StartsWith("{\n  \"result\": \"interrupted\",\n  \"seed\": 42,\n  \"rerun\": "));
  EXPECT_THAT(InterruptedJson(SIGTERM, "gone", SomeResult().config),
              HasSubstr("\"interrupted_by\": \"SIGTERM\",\n  \"detail\": \"gone\"\n}\n"));
}

TEST(FailureJsonTest, NamesTheMarkerAndEscapesTheDetail) {
  const std::string json =
      FailureJson("invariant F1", "flow 3 \"owned\" twice\nqp 1", SomeResult().config);
  EXPECT_THAT(json, StartsWith("{\n  \"result\": \"fail\",\n  \"seed\": 42,\n  \"rerun\": "));
  EXPECT_THAT(json, HasSubstr("\"failure\": \"invariant F1\",\n"));
  EXPECT_THAT(json, HasSubstr("\"detail\": \"flow 3 \\\"owned\\\" twice\\nqp 1\"\n}\n"));
}

TEST(SignalNameTest, NamesTheStopSignals) {
  EXPECT_EQ(SignalName(SIGINT), "SIGINT");
  EXPECT_EQ(SignalName(SIGTERM), "SIGTERM");
  EXPECT_EQ(SignalName(SIGHUP), "signal 1");
}

}  // namespace
}  // namespace program
}  // namespace flowcheck
