// The runtime's contract for scenario code (sched.h): decision points,
// waiting (BlockUntil, Join), spawning from a thread, failures from any
// context, exceptions, and what happens outside a run. Each test runs with
// both backends.
#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lockcheck/spinlock.h"
#include "sched/run.h"
#include "sched/sched.h"

namespace {

class RuntimeTest : public ::testing::TestWithParam<std::string> {
 protected:
  sched::Options Opts(const std::string& strategy) {
    sched::Options o;
    o.scenario = "runtime_test";
    EXPECT_TRUE(::sched::Parse(strategy, &o.strategy));
    o.max_executions = strategy == "dfs" ? 0 : 200;
    o.max_preemptions = -1;
    EXPECT_TRUE(::sched::Parse(GetParam(), &o.backend));
    o.out = nullptr;
    o.verbosity = 0;
    o.schedule_out = ::testing::TempDir();
    return o;
  }
};

// Exceptions being handled belong to the thread that caught them, even when
// the thread is switched out inside its catch block and another thread
// throws and catches meanwhile (fibers share the OS thread's C++ runtime
// exception state unless the switcher keeps it per fiber).
TEST_P(RuntimeTest, ACaughtExceptionStaysWithItsThreadAcrossASwitch) {
  auto o = Opts("dfs");
  const sched::RunResult r = sched::Run(o, [] {
    for (int i = 0; i < 2; ++i) {
      sched::Spawn("catcher-" + std::to_string(i), [i] {
        try {
          throw i;
        } catch (int caught) {
          sched::Point("inside the catch block");
          try {
            std::rethrow_exception(std::current_exception());
          } catch (int again) {
            SCHED_CHECK(again == i && caught == i,
                        "rethrew " + std::to_string(again) + ", caught " + std::to_string(caught));
          }
          SCHED_CHECK(std::uncaught_exceptions() == 0, "an exception is in flight");
        }
      });
    }
  });
  EXPECT_FALSE(r.failed) << r.output;
  EXPECT_TRUE(r.dfs_exhausted) << r.output;
}

TEST_P(RuntimeTest, BlockUntilWaitsForTheConditionAndJoinForTheThread) {
  auto o = Opts("dfs");
  int executions_checked = 0;
  const sched::RunResult r = sched::Run(o, [&executions_checked] {
    struct S {
      spinlock_t lock;
      bool produced = false;
      int consumed_value = 0;
    };
    auto s = std::make_shared<S>();
    spin_lock_init(&s->lock);
    const sched::ThreadId producer = sched::Spawn("producer", [s] {
      sched::Point("before producing");
      spin_lock(&s->lock);
      s->produced = true;
      spin_unlock(&s->lock);
    });
    sched::Spawn("consumer", [s, producer] {
      // Reads `produced` only inside the scheduler (no race), then takes the
      // lock as real code would.
      sched::BlockUntil("something produced", [s] { return s->produced; });
      spin_lock(&s->lock);
      SCHED_CHECK(s->produced, "woken before the producer ran");
      spin_unlock(&s->lock);
      sched::Join(producer);
      s->consumed_value = 1;
    });
    sched::AtEnd([s, &executions_checked] {
      SCHED_CHECK(s->consumed_value == 1, "consumer did not finish");
      ++executions_checked;
    });
  });
  EXPECT_FALSE(r.failed) << r.output;
  EXPECT_TRUE(r.dfs_exhausted) << r.output;
  EXPECT_EQ(static_cast<uint64_t>(executions_checked), r.executions);
  EXPECT_GT(r.executions, 1u);
}

TEST_P(RuntimeTest, AThreadCanSpawnAndJoinAnother) {
  auto o = Opts("dfs");
  const sched::RunResult r = sched::Run(o, [] {
    auto value = std::make_shared<int>(0);
    sched::Spawn("parent", [value] {
      *value = 1;  // before the spawn: the child sees it
      const sched::ThreadId child = sched::Spawn("child", [value] {
        SCHED_CHECK(*value == 1, "the child does not see its parent's write");
        *value = 2;
      });
      sched::Join(child);
      SCHED_CHECK(*value == 2, "the join does not see the child's write");
    });
    sched::AtEnd([value] { SCHED_CHECK(*value == 2, "final value"); });
  });
  EXPECT_FALSE(r.failed) << r.output;
  EXPECT_TRUE(r.dfs_exhausted) << r.output;
  EXPECT_GT(r.executions, 1u);  // the parent's join point and the child's run interleave
}

TEST_P(RuntimeTest, SchedCheckInAThreadFailsTheExecutionAndEndsTheOthers) {
  auto o = Opts("random");
  auto after_failure = std::make_shared<std::atomic<int>>(0);
  const sched::RunResult r = sched::Run(o, [after_failure] {
    sched::Spawn("checker", [] { SCHED_CHECK(1 + 1 == 3, "arithmetic"); });
    sched::Spawn("spinner", [after_failure] {
      for (int i = 0; i < 100; ++i) sched::Point("spin");
      after_failure->fetch_add(1);  // must not run once the execution failed
    });
  });
  ASSERT_TRUE(r.failed);
  EXPECT_EQ(r.failure_kind, "check");
  EXPECT_NE(r.failure_line.find("thread"), std::string::npos) << r.failure_line;
  EXPECT_NE(r.failure_line.find("\"checker\": check failed: 1 + 1 == 3"), std::string::npos)
      << r.failure_line;
  EXPECT_EQ(r.executions, 1u);
  EXPECT_EQ(after_failure->load(), 0);
}

TEST_P(RuntimeTest, AnEscapingExceptionIsAFailure) {
  auto o = Opts("random");
  const sched::RunResult r =
      sched::Run(o, [] { sched::Spawn("thrower", [] { throw std::runtime_error("boom"); }); });
  ASSERT_TRUE(r.failed);
  EXPECT_EQ(r.failure_kind, "exception");
  EXPECT_NE(r.failure_line.find("\"thrower\" let an exception escape: boom"), std::string::npos)
      << r.failure_line;
}

TEST_P(RuntimeTest, FailInSetupOrAtEndIsAFailure) {
  auto o = Opts("random");
  sched::RunResult r = sched::Run(o, [] { sched::Fail("setup says no"); });
  ASSERT_TRUE(r.failed);
  EXPECT_EQ(r.failure_kind, "check");
  EXPECT_NE(r.failure_line.find("the controller: setup says no"), std::string::npos);
  r = sched::Run(o, [] {
    sched::Spawn("t", [] {});
    sched::AtEnd([] { sched::Fail("end check says no"); });
  });
  ASSERT_TRUE(r.failed);
  EXPECT_NE(r.failure_line.find("end check says no"), std::string::npos);
}

TEST_P(RuntimeTest, OutsideARunTheDecisionCallsDoNothing) {
  EXPECT_FALSE(sched::UnderControl());
  EXPECT_EQ(sched::CurrentThread(), -1);
  sched::Point("nothing happens");
  sched::Yield();
  bool called = false;
  sched::BlockUntil("never asked", [&called] { return called = true; });
  EXPECT_FALSE(called);
  auto o = Opts("random");
  o.max_executions = 1;
  std::vector<int> ids(3, -1);  // one slot per thread: no shared write
  const sched::RunResult r = sched::Run(o, [&ids] {
    EXPECT_FALSE(sched::UnderControl());  // the setup runs on the controller
    for (int i = 0; i < 3; ++i) {
      sched::Spawn("t", [&ids, i] {
        EXPECT_TRUE(sched::UnderControl());
        ids[i] = sched::CurrentThread();
      });
    }
  });
  EXPECT_FALSE(r.failed) << r.output;
  EXPECT_EQ(ids, (std::vector<int>{0, 1, 2}));
}

INSTANTIATE_TEST_SUITE_P(Backends, RuntimeTest, ::testing::Values("fiber", "baton"));

}  // namespace
