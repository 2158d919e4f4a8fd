// program/watchdog_test.cc: the watchdog and the failure paths end a run with
// the marker, every thread's locks and the rerun command (death tests).
#include "program/watchdog.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "gmock/gmock-matchers.h"
#include "gtest/gtest.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/spinlock.h"
#include "program/config.h"
#include "program/failure.h"

namespace flowcheck {
namespace program {
namespace {

struct Context {
  spinlock_t exp_lock;
};

StressConfig SomeConfig() {
  StressConfig c;
  c.seed = 99;
  c.threads = 6;
  return c;
}

// A deliberately stuck run: "holder" takes the lock and blocks forever,
// "spinner" spins on it, nobody makes progress. The watchdog must abort,
// leaving its failure in `json_out`.
[[noreturn]] void StuckRun(const std::string& json_out) {
  StressConfig c = SomeConfig();
  c.json_out = json_out;
  ArmFailureReporting(c);
  static Context ctx;
  spin_lock_init(&ctx.exp_lock);
  static std::atomic<uint64_t> progress{0};
  static std::mutex m;
  static std::condition_variable cv;
  // Both hold or want the lock until the process dies, on purpose.
  std::thread holder([]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    lockcheck::SetThreadName("holder");
    unsigned long flags;
    spin_lock_irqsave(&ctx.exp_lock, flags);
    std::unique_lock<std::mutex> l(m);
    cv.wait(l, [] { return false; });
  });
  while (!spin_is_locked(&ctx.exp_lock)) std::this_thread::yield();
  std::thread spinner([]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    lockcheck::SetThreadName("spinner");
    unsigned long flags;
    spin_lock_irqsave(&ctx.exp_lock, flags);
  });
  Watchdog watchdog(&progress, 1.0, [] { return std::string("  stress-0: stuck on purpose\n"); });
  watchdog.Start();
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

TEST(WatchdogDeathTest, StuckThreadsBecomeAReportWithHeldLocksThenAnAbort) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string json_out = std::string(tmp != nullptr ? tmp : "/tmp") + "/watchdog.json";
  unlink(json_out.c_str());
  EXPECT_DEATH(StuckRun(json_out),
               "flowcheck: FAIL \\[watchdog\\] no progress for 1 s(.|\n)*"
               "stress-0: stuck on purpose(.|\n)*"
               "\"holder\" \\(irqs off\\): holds 1 lock: &ctx.exp_lock(.|\n)*"
               "\"spinner\" \\(irqs off\\): holds no locks; waiting for &ctx.exp_lock[^\n]* "
               "held by thread [0-9]+ \"holder\"(.|\n)*"
               "flowcheck: seed 99 \\(it fixes each thread's op list[^\n]*not the interleaving"
               "[^\n]*\nflowcheck: rerun: bazel run [^\n]*//stress:stress_main -- --seed=99 "
               "--threads=6");
  std::ifstream in(json_out);
  std::stringstream json;
  json << in.rdbuf();
  EXPECT_THAT(json.str(), ::testing::StartsWith("{\n  \"result\": \"fail\",\n  \"seed\": 99,\n"));
  EXPECT_THAT(json.str(), ::testing::HasSubstr("\"failure\": \"watchdog\",\n"));
}

TEST(WatchdogTest, StallReportNamesTheHarnessThreads) {
  std::atomic<uint64_t> progress{42};
  Watchdog watchdog(&progress, 5.0, [] { return std::string("  stress-3: setup\n"); });
  const std::string report = watchdog.StallReport(5.0);
  EXPECT_THAT(report, ::testing::HasSubstr("no progress for 5 s (progress counter 42)"));
  EXPECT_THAT(report, ::testing::HasSubstr("stress-3: setup"));
  EXPECT_THAT(report, ::testing::HasSubstr("threads known to lockcheck"));
}

TEST(FailureDeathTest, FailPrintsTheMarkerTheSeedAndTheRerunCommand) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        ArmFailureReporting(SomeConfig());
        Fail("invariant F1", "flow 3 is owned 2 times");
      },
      "flowcheck: FAIL \\[invariant F1\\] flow 3 is owned 2 times\nflowcheck: seed 99 \\(it fixes "
      "each thread's op list and yield decisions, not the interleaving[^\n]*\n"
      "flowcheck: rerun: bazel run [^\n]*//stress:stress_main -- --seed=99 --threads=6\n");
}

TEST(FailureDeathTest, ALockcheckReportAlsoEndsWithTheRerunCommand) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        ArmFailureReporting(SomeConfig());
        static Context ctx;
        spin_lock_init(&ctx.exp_lock);
        lockdep_assert_held(&ctx.exp_lock);
      },
      "lockcheck: lockdep-assert-held-failed(.|\n)*flowcheck: rerun: bazel run "
      "[^\n]*--seed=99 --threads=6");
}

TEST(RerunCommandTest, NamesEveryFlagThatChangesTheRun) {
  StressConfig c;
  c.seed = 5;
  EXPECT_THAT(RerunCommand(c), ::testing::EndsWith("//stress:stress_main -- --seed=5"));
  c.threads = 8;
  c.contexts = 2;
  c.yield_probability = 0.25;
  c.flush_handoff = false;
  c.seconds = 30;
  c.json_out = "out/x.json";  // does not change the run: not repeated
  c.progress_every = 2;
  EXPECT_THAT(RerunCommand(c),
              ::testing::EndsWith("//stress:stress_main -- --seed=5 --threads=8 --seconds=30 "
                                  "--contexts=2 --yield_probability=0.25 --flush_handoff=false"));
  EXPECT_EQ(RerunCommand(c).find("--config=tsan") != std::string::npos, BuiltWithTsan());
}

}  // namespace
}  // namespace program
}  // namespace flowcheck
