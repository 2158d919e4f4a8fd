// lockcheck's rules hold per logical thread under the scheduler: each logical
// thread has its own held-lock stack, IRQ state and name (the lockcheck seam
// swaps them at every switch), and the interrupt model runs an interrupt
// thread only where its CPU has IRQs on.
#include <atomic>
#include <functional>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/spinlock.h"
#include "sched/cli.h"
#include "sched/run.h"
#include "sched/sched.h"

namespace {

class LockcheckRulesTest : public ::testing::TestWithParam<std::string> {
 protected:
  sched::Options Opts() {
    sched::Options o;
    o.scenario = "lockcheck_rules_test";
    o.strategy = ::sched::StrategyKind::kDfs;
    o.max_executions = 0;
    o.max_preemptions = -1;
    EXPECT_TRUE(::sched::Parse(GetParam(), &o.backend));
    o.out = nullptr;
    o.verbosity = 0;
    o.schedule_out = ::testing::TempDir() + "/";
    return o;
  }
};

struct Shared {
  spinlock_t lock;
};

TEST_P(LockcheckRulesTest, TwoLogicalThreadsTakingOneLockAreTwoThreads) {
  // Any lockcheck report fails the run. With one record for all logical
  // threads, the second thread's spin_lock would be "recursive locking".
  const sched::RunResult r = sched::Run(Opts(), [] {
    auto s = std::make_shared<Shared>();
    spin_lock_init(&s->lock);
    for (int i = 0; i < 2; ++i) {
      sched::Spawn("taker-" + std::to_string(i), [s] {
        spin_lock(&s->lock);
        sched::Point("holding it");
        lockdep_assert_held(&s->lock);
        spin_unlock(&s->lock);
        lockdep_assert_not_held(&s->lock);
      });
    }
  });
  EXPECT_FALSE(r.failed) << r.output;
  EXPECT_TRUE(r.dfs_exhausted);
  EXPECT_GT(r.executions, 2u);
}

TEST_P(LockcheckRulesTest, AssertHeldInTheThreadThatDoesNotHoldTheLockIsReported) {
  const sched::RunResult r = sched::Run(Opts(), [] {
    auto s = std::make_shared<Shared>();
    spin_lock_init(&s->lock);
    sched::Spawn("holder", [s] {
      spin_lock(&s->lock);
      sched::Point("holding it");
      spin_unlock(&s->lock);
    });
    sched::Spawn("asserter", [s]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
      if (spin_is_locked(&s->lock)) lockdep_assert_held(&s->lock);  // wrong thread
    });
  });
  ASSERT_TRUE(r.failed);
  EXPECT_EQ(r.failure_kind, "lockcheck");
  EXPECT_TRUE(std::regex_search(
      r.failure_line,
      std::regex("^lockdep-assert-held-failed on &s->lock in thread [0-9]+ \"asserter\"$")))
      << r.failure_line;
}

TEST_P(LockcheckRulesTest, ALogicalThreadEndingWithALockHeldIsReportedByName) {
  const sched::ScenarioSpec* spec = sched::FindScenario("exit_holding_lock");
  ASSERT_NE(spec, nullptr);
  std::string error;
  sched::Options o = Opts();
  o.strategy = ::sched::StrategyKind::kRandom;
  o.max_executions = 1;
  const sched::RunResult r = sched::Run(o, spec->make({}, &error));
  ASSERT_TRUE(r.failed);
  EXPECT_EQ(r.failure_kind, "lockcheck");
  EXPECT_TRUE(std::regex_search(
      r.failure_line,
      std::regex("^thread-exit-with-locks-held on &s->lock in thread [0-9]+ \"leaker\"$")))
      << r.failure_line;
  EXPECT_NE(r.report.find("\"leaker\" is exiting while holding 1 lock"), std::string::npos)
      << r.report;
}

TEST_P(LockcheckRulesTest, IrqStateFollowsTheLogicalThread) {
  const sched::RunResult r = sched::Run(Opts(), [] {
    sched::Spawn("irqs-off", [] {
      unsigned long flags;
      local_irq_save(flags);
      sched::Point("IRQs off");
      SCHED_CHECK(irqs_disabled(), "IRQs came back on in this thread");
      local_irq_restore(flags);
      SCHED_CHECK(!irqs_disabled(), "IRQs still off");
    });
    sched::Spawn("irqs-on", [] {
      sched::Point("before");
      SCHED_CHECK(!irqs_disabled(), "another thread's IRQ state leaked in");
      SCHED_CHECK(!lockcheck::in_hardirq(), "in hardirq");
    });
  });
  EXPECT_FALSE(r.failed) << r.output;
  EXPECT_GT(r.executions, 2u);
}

// ---- The interrupt model ------------------------------------------------------

struct IrqProbe {
  spinlock_t lock;
  std::atomic<int> stage{0};     // the process thread's progress (relaxed)
  std::atomic<int> seen_at{-1};  // the stage when the interrupt started
  std::atomic<bool> frozen_ok{true};
};

// process: stage 0 -> spin_lock_irqsave -> stage 1 -> point -> stage 2 ->
// unlock_irqrestore -> stage 3 -> point -> stage 4. Stages 1-2 have IRQs off;
// the interrupt may start at spin_unlock_irqrestore's point, after IRQs came
// back on and before stage 3 is stored: it then sees stage 2, lock released.
// The interrupt records the stage it found, passes two points, and checks
// the process did not move meanwhile.
std::set<int> InterruptStartStages(const std::string& backend, bool as_interrupt,
                                   sched::RunResult* result) {
  auto stages = std::make_shared<std::set<int>>();
  sched::Options o;
  o.scenario = "irq_probe";
  o.strategy = ::sched::StrategyKind::kDfs;
  o.max_executions = 0;
  o.max_preemptions = -1;
  EXPECT_TRUE(::sched::Parse(backend, &o.backend));
  o.out = nullptr;
  o.verbosity = 0;
  *result = sched::Run(o, [stages, as_interrupt] {
    auto p = std::make_shared<IrqProbe>();
    spin_lock_init(&p->lock);
    const sched::ThreadId process = sched::Spawn("process", [p] {
      unsigned long flags;
      spin_lock_irqsave(&p->lock, flags);
      p->stage.store(1, std::memory_order_relaxed);
      sched::Point("IRQs off, lock held");
      p->stage.store(2, std::memory_order_relaxed);
      spin_unlock_irqrestore(&p->lock, flags);
      p->stage.store(3, std::memory_order_relaxed);
      sched::Point("IRQs on");
      p->stage.store(4, std::memory_order_relaxed);
    });
    sched::ThreadOptions irq;
    if (as_interrupt) irq.interrupts = process;
    sched::Spawn(
        "rcv-irq",
        [p, as_interrupt] {
          const int at = p->stage.load(std::memory_order_relaxed);
          p->seen_at.store(at, std::memory_order_relaxed);
          if (as_interrupt) {
            SCHED_CHECK(lockcheck::in_hardirq(), "not in hardirq context");
            SCHED_CHECK(!spin_is_locked(&p->lock), "started inside the IRQs-off section");
          }
          sched::Point("in the handler");
          sched::Point("still in the handler");
          if (p->stage.load(std::memory_order_relaxed) != at) p->frozen_ok.store(false);
        },
        irq);
    sched::AtEnd([p, stages, as_interrupt] {
      stages->insert(p->seen_at.load(std::memory_order_relaxed));
      if (as_interrupt) SCHED_CHECK(p->frozen_ok.load(), "the interrupted thread ran mid-handler");
    });
  });
  return *stages;
}

TEST_P(LockcheckRulesTest, AnInterruptStartsOnlyWhereItsCpuHasIrqsOnAndFreezesItsThread) {
  sched::RunResult r;
  const std::set<int> stages = InterruptStartStages(GetParam(), true, &r);
  EXPECT_FALSE(r.failed) << r.output;
  EXPECT_TRUE(r.dfs_exhausted);
  // Before the critical section (stage 0, at spin_lock_irqsave's point before
  // IRQs go off too), the instant spin_unlock_irqrestore re-enabled IRQs
  // (stage 2, the lock released: checked in the handler), after it, and after
  // the thread's end; never while IRQs are off (stage 1).
  EXPECT_EQ(stages, (std::set<int>{0, 2, 3, 4}));
}

// Two back-to-back irqsave sections with no decision point of their own
// between them: the interrupt can land between them (the kernel's CPU takes
// it the instant spin_unlock_irqrestore re-enables IRQs). dfs finds it; so
// do random and pct. The handler records where it landed.
struct BackToBack {
  spinlock_t a, b;
  std::atomic<int> stage{0};
  std::atomic<int> seen_at{-1};
};

std::function<void()> BackToBackScenario(std::shared_ptr<std::set<int>> seen) {
  return [seen] {
    auto p = std::make_shared<BackToBack>();
    spin_lock_init(&p->a);
    spin_lock_init(&p->b);
    const sched::ThreadId process = sched::Spawn("process", [p] {
      unsigned long flags;
      spin_lock_irqsave(&p->a, flags);
      p->stage.store(1, std::memory_order_relaxed);
      spin_unlock_irqrestore(&p->a, flags);
      spin_lock_irqsave(&p->b, flags);
      p->stage.store(2, std::memory_order_relaxed);
      spin_unlock_irqrestore(&p->b, flags);
    });
    sched::ThreadOptions irq;
    irq.interrupts = process;
    sched::Spawn(
        "rcv-irq", [p] { p->seen_at.store(p->stage.load(std::memory_order_relaxed)); }, irq);
    sched::AtEnd([p, seen] { seen->insert(p->seen_at.load()); });
  };
}

TEST_P(LockcheckRulesTest, AnInterruptLandsBetweenTwoBackToBackIrqsaveSections) {
  for (const char* strategy : {"dfs", "random", "pct"}) {
    SCOPED_TRACE(strategy);
    auto seen = std::make_shared<std::set<int>>();
    sched::Options o = Opts();
    EXPECT_TRUE(::sched::Parse(strategy, &o.strategy));
    o.max_executions = std::string(strategy) == "dfs" ? 0 : 200;
    o.max_preemptions = -1;
    const sched::RunResult r = sched::Run(o, BackToBackScenario(seen));
    EXPECT_FALSE(r.failed) << r.output;
    // Before both, between them (stage 1), after both.
    EXPECT_EQ(*seen, (std::set<int>{0, 1, 2})) << r.executions << " executions";
    if (std::string(strategy) == "dfs") EXPECT_TRUE(r.dfs_exhausted);
  }
}

// ThreadOptions::runs: the handler runs that many times in one execution,
// each time where the scheduler picks; between runs the process goes on.
TEST_P(LockcheckRulesTest, AnInterruptHandlerRunsAsOftenAsItsRuns) {
  auto pairs = std::make_shared<std::set<std::pair<int, int>>>();
  sched::Options o = Opts();
  o.strategy = ::sched::StrategyKind::kDfs;
  o.max_executions = 0;
  o.max_preemptions = -1;
  const sched::RunResult r = sched::Run(o, [pairs] {
    auto p = std::make_shared<BackToBack>();
    auto seen = std::make_shared<std::vector<int>>();
    spin_lock_init(&p->a);
    const sched::ThreadId process = sched::Spawn("process", [p] {
      for (int i = 1; i <= 2; ++i) {
        unsigned long flags;
        spin_lock_irqsave(&p->a, flags);
        p->stage.store(i, std::memory_order_relaxed);
        spin_unlock_irqrestore(&p->a, flags);
      }
    });
    sched::ThreadOptions irq;
    irq.interrupts = process;
    irq.runs = 2;
    sched::Spawn(
        "rcv-irq",
        [p, seen] {
          SCHED_CHECK(lockcheck::in_hardirq(), "a later run is not in hardirq context");
          seen->push_back(p->stage.load(std::memory_order_relaxed));
        },
        irq);
    sched::AtEnd([seen, pairs] {
      SCHED_CHECK(seen->size() == 2, "the handler ran " + std::to_string(seen->size()) + " times");
      pairs->insert({(*seen)[0], (*seen)[1]});
    });
  });
  EXPECT_FALSE(r.failed) << r.output;
  EXPECT_TRUE(r.dfs_exhausted);
  // Both runs at one spot, or at two: every ordered pair of stages 0..2.
  EXPECT_EQ(pairs->size(), 6u);
  EXPECT_EQ(pairs->count({0, 2}), 1u);
  EXPECT_EQ(pairs->count({1, 1}), 1u);
}

TEST_P(LockcheckRulesTest, AnOrdinaryThreadDoesRunInsideTheCriticalSection) {
  // The control for the test above: the same thread without the interrupt
  // option also starts while the lock is held, and the process moves on
  // between its points.
  sched::RunResult r;
  const std::set<int> stages = InterruptStartStages(GetParam(), false, &r);
  EXPECT_FALSE(r.failed) << r.output;
  EXPECT_TRUE(stages.count(1) == 1 || stages.count(2) == 1);
}

TEST_P(LockcheckRulesTest, AnInterruptOnALockTakenWithIrqsOnIsADeadlock) {
  const sched::ScenarioSpec* spec = sched::FindScenario("irq");
  ASSERT_NE(spec, nullptr);
  std::string error;
  sched::Options o = Opts();
  o.scenario = "irq";
  o.params = {{"irqsave", "0"}};
  // lockcheck alone: the lock is used in hardirq context and with IRQs on.
  sched::RunResult r = sched::Run(o, spec->make(o.params, &error));
  ASSERT_TRUE(r.failed);
  EXPECT_EQ(r.failure_kind, "lockcheck");
  EXPECT_NE(r.failure_line.find("inconsistent-irq-lock-state"), std::string::npos)
      << r.failure_line;
  // With lockcheck's reports recorded only, the search runs into the deadlock
  // itself: the interrupt spins on the lock its own CPU's thread holds.
  o.lockcheck_reports = ::sched::LockcheckReports::kRecord;
  r = sched::Run(o, spec->make(o.params, &error));
  ASSERT_TRUE(r.failed);
  EXPECT_EQ(r.failure_kind, "deadlock");
  EXPECT_TRUE(std::regex_search(
      r.report,
      std::regex("wait-for cycle .*: thread [0-9]+ \"(process|rcv-irq)\" -> .* -> thread")))
      << r.report;
  EXPECT_NE(r.report.find("\"process\": interrupted by thread"), std::string::npos) << r.report;
  // And with spin_lock_irqsave the space is clean.
  o.params = {{"irqsave", "1"}};
  o.lockcheck_reports = ::sched::LockcheckReports::kEnd;
  r = sched::Run(o, spec->make(o.params, &error));
  EXPECT_FALSE(r.failed) << r.output;
  EXPECT_TRUE(r.dfs_exhausted);
}

INSTANTIATE_TEST_SUITE_P(Backends, LockcheckRulesTest, ::testing::Values("fiber", "baton"));

}  // namespace
