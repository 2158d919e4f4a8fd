// The trace of an execution (trace_out.h), step by step, on a scenario whose
// every decision is known: thread "a" takes &t->a, stops at a point inside,
// nests &t->b and releases both; thread "b" fails a check. The guided
// strategy with an empty list runs it without preemption (lowest thread
// first), so the steps below are the whole truth.
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "gtest/gtest.h"
#include "lockcheck/spinlock.h"
#include "sched/run.h"
#include "sched/sched.h"

namespace {

struct Two {
  spinlock_t a, b;
  int n = 0;  // steps of "a" done; read by the probe
};

void Setup() {
  auto t = std::make_shared<Two>();
  spin_lock_init(&t->a);
  spin_lock_init(&t->b);
  sched::Spawn("a", [t] {
    spin_lock(&t->a);
    t->n = 1;
    sched::Point("inside a");
    spin_lock(&t->b);
    t->n = 2;
    spin_unlock(&t->b);
    spin_unlock(&t->a);
  });
  sched::Spawn("b", [] {
    sched::Point("b");
    SCHED_CHECK(false, "b fails");
  });
  sched::SetStateProbe([t] { return "{\"n\":" + std::to_string(t->n) + "}"; });
}

sched::RunResult RunTraced(const std::string& backend, const std::string& path) {
  sched::Options o;
  o.scenario = "trace_test";
  o.strategy = ::sched::StrategyKind::kGuided;
  EXPECT_TRUE(::sched::Parse(backend, &o.backend));
  o.trace_out = path;
  o.out = nullptr;
  return sched::Run(o, Setup);
}

using Held = std::vector<std::vector<std::string>>;

class TraceTest : public testing::TestWithParam<std::string> {};

TEST_P(TraceTest, EveryStepHeldLocksStateAndFailure) {
  const std::string path = std::string(getenv("TEST_TMPDIR")) + "/trace.json";
  const sched::RunResult r = RunTraced(GetParam(), path);
  ASSERT_TRUE(r.failed);
  ASSERT_EQ(r.trace_path, path);
  const sched::Trace& t = r.trace;
  ASSERT_EQ(t.threads.size(), 2u);
  EXPECT_EQ(t.threads[0].name, "a");
  EXPECT_EQ(t.initial_state, "{\"n\":0}");
  struct Want {
    int thread;
    const char* kind;
    const char* label;
    const char* lock;
    int chosen;
    Held held;  // during the step
    const char* state;  // after it
  };
  const std::vector<Want> want = {
      {-1, "start", "", "", 0, {{}, {}}, "{\"n\":0}"},
      {0, "lock", "", "&t->a", 0, {{"&t->a"}, {}}, "{\"n\":1}"},
      {0, "point", "inside a", "", 0, {{"&t->a"}, {}}, "{\"n\":1}"},
      {0, "lock", "", "&t->b", 0, {{"&t->a", "&t->b"}, {}}, "{\"n\":2}"},
      {0, "unlock", "", "&t->b", 0, {{"&t->a"}, {}}, "{\"n\":2}"},
      {0, "unlock", "", "&t->a", 0, {{}, {}}, "{\"n\":2}"},
      {0, "finish", "", "", 1, {{}, {}}, "{\"n\":2}"},
      {1, "point", "b", "", 1, {{}, {}}, "{\"n\":2}"},
  };
  ASSERT_EQ(t.steps.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    const sched::TraceStep& s = t.steps[i];
    EXPECT_EQ(s.step, i);
    EXPECT_EQ(s.thread, want[i].thread);
    EXPECT_EQ(s.kind, want[i].kind);
    EXPECT_EQ(s.label, want[i].label);
    EXPECT_EQ(s.lock, want[i].lock);
    EXPECT_EQ(s.chosen, want[i].chosen);
    EXPECT_EQ(s.held, want[i].held);
    EXPECT_TRUE(s.has_state);
    EXPECT_EQ(s.state, want[i].state);
  }
  EXPECT_TRUE(t.failed);
  EXPECT_EQ(t.failure_kind, "check");
  EXPECT_EQ(t.failure_after_step, 7);
  EXPECT_EQ(t.failure_thread, 1);

  // The file is that trace, as JSON (the probe's object embedded as is).
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_EQ(text.str(), sched::TraceJson(t, "trace_test", {}, r.last_trace_hash));
  EXPECT_NE(text.str().find("\"held\": [[\"&t->a\",\"&t->b\"],[]], \"state\": {\"n\":2}"),
            std::string::npos);
  EXPECT_NE(text.str().find("\"failure\": {\"kind\": \"check\", \"line\": "), std::string::npos);
}

TEST_P(TraceTest, NoTraceNoProbeCalls) {
  int calls = 0;
  sched::Options o;
  o.scenario = "trace_test";
  o.strategy = ::sched::StrategyKind::kGuided;
  EXPECT_TRUE(::sched::Parse(GetParam(), &o.backend));
  o.out = nullptr;
  sched::Run(o, [&calls] {
    sched::SetStateProbe([&calls] {
      ++calls;
      return std::string("{}");
    });
    sched::Spawn("x", [] { sched::Point("p"); });
  });
  EXPECT_EQ(calls, 0);
}

TEST(TraceJson, StringsAreEscapedAndNonObjectsQuoted) {
  sched::Trace t;
  t.threads.push_back({"x", -1});
  t.has_initial_state = true;
  t.initial_state = "not json";
  EXPECT_NE(sched::TraceJson(t, "s", {}, 0).find("\"state\": \"not json\""), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Backends, TraceTest, testing::Values("fiber", "baton"));

}  // namespace
