// program/failure_test.cc: every way a run can fail leaves --json_out saying
// {"result": "fail", ...} with the marker (death tests: the child fails, the
// parent reads the file it left).
#include "program/failure.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "gmock/gmock-matchers.h"
#include "gtest/gtest.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/spinlock.h"
#include "program/config.h"

namespace flowcheck {
namespace program {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Context {
  spinlock_t exp_lock;
};

// A fresh path in the test's temporary directory (no file there yet).
std::string JsonPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/" + name + ".json";
  unlink(path.c_str());
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

StressConfig ConfigWritingTo(const std::string& path) {
  StressConfig c;
  c.seed = 99;
  c.threads = 6;
  c.json_out = path;
  return c;
}

TEST(FailureJsonDeathTest, FailWritesTheMarkerBeforeItAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = JsonPath("fail");
  EXPECT_DEATH(
      {
        ArmFailureReporting(ConfigWritingTo(path));
        Fail("invariant F1", "flow 3 is owned 2 times");
      },
      "flowcheck: FAIL \\[invariant F1\\]");
  const std::string json = ReadFile(path);
  EXPECT_THAT(json, StartsWith("{\n  \"result\": \"fail\",\n  \"seed\": 99,\n  \"rerun\": \""));
  EXPECT_THAT(json, HasSubstr("\"failure\": \"invariant F1\",\n"));
  EXPECT_THAT(json, HasSubstr("\"detail\": \"flow 3 is owned 2 times\"\n}\n"));
}

TEST(FailureJsonDeathTest, AnUnwritableJsonPathIsReportedWithTheErrno) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        ArmFailureReporting(ConfigWritingTo("/nonexistent/dir/x.json"));
        Fail("watchdog", "no progress");
      },
      "flowcheck: FAIL \\[watchdog\\] no progress(.|\n)*flowcheck: cannot write "
      "/nonexistent/dir/x.json: create failed: No such file or directory");
}

TEST(FailureJsonDeathTest, ALockcheckReportNamesItsRule) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = JsonPath("lockcheck");
  EXPECT_DEATH(
      {
        ArmFailureReporting(ConfigWritingTo(path));
        static Context ctx;
        spin_lock_init(&ctx.exp_lock);
        lockdep_assert_held(&ctx.exp_lock);
      },
      "lockcheck: lockdep-assert-held-failed(.|\n)*flowcheck: rerun: ");
  const std::string json = ReadFile(path);
  EXPECT_THAT(json, StartsWith("{\n  \"result\": \"fail\",\n  \"seed\": 99,\n"));
  EXPECT_THAT(json,
              HasSubstr("\"failure\": \"lockcheck: lockdep-assert-held-failed on &ctx.exp_lock\""));
}

TEST(FailureJsonDeathTest, AnyOtherAbortStillLeavesAFailure) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = JsonPath("abort");
  EXPECT_DEATH(
      {
        ArmFailureReporting(ConfigWritingTo(path));
        std::abort();
      },
      "flowcheck: seed 99 (.|\n)*flowcheck: rerun: ");
  const std::string json = ReadFile(path);
  EXPECT_THAT(json, StartsWith("{\n  \"result\": \"fail\",\n  \"seed\": 99,\n"));
  EXPECT_THAT(json, HasSubstr("\"failure\": \"abort\""));
}

// Two threads bump a plain int: a data race, which only TSan reports.
int racy_counter = 0;
void Bump() {
  for (int i = 0; i < 100000; ++i) racy_counter = racy_counter + 1;
}

TEST(FailureJsonDeathTest, AThreadSanitizerReportLeavesAFailure) {
  if (!BuiltWithTsan()) GTEST_SKIP() << "needs --config=tsan";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = JsonPath("tsan");
  EXPECT_DEATH(
      {
        ArmFailureReporting(ConfigWritingTo(path));
        std::thread a(Bump);
        std::thread b(Bump);
        a.join();
        b.join();
      },
      "ThreadSanitizer: data race(.|\n)*flowcheck: rerun: ");
  const std::string json = ReadFile(path);
  EXPECT_THAT(json, StartsWith("{\n  \"result\": \"fail\",\n  \"seed\": 99,\n"));
  EXPECT_THAT(json, HasSubstr("\"failure\": \"ThreadSanitizer report\""));
}

TEST(FailureJsonTest, TheJsonHasOneWriterPerArming) {
  ArmFailureReporting(ConfigWritingTo(JsonPath("claim")));
  EXPECT_TRUE(ClaimJsonOut());
  EXPECT_FALSE(ClaimJsonOut());
  DisarmFailureReporting();
  EXPECT_FALSE(ClaimJsonOut());  // until the next run arms
  ArmFailureReporting(ConfigWritingTo(JsonPath("claim")));
  EXPECT_TRUE(ClaimJsonOut());
  DisarmFailureReporting();
}

}  // namespace
}  // namespace program
}  // namespace flowcheck
