// The bytes strategy (bytes_strategy.cc): byte 0 keeps the current thread,
// byte k the k-th other runnable one in id order after it; past the bytes no
// preemption, else the lowest runnable; any byte string is valid for any
// scenario (never "nondeterminism"), one execution; and with
// Options::write_schedule false a failure writes no schedule file.
#include <dirent.h>

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sched/run.h"
#include "sched/sched.h"

namespace {

sched::Options Opts(std::vector<uint8_t> bytes, const std::string& backend = "fiber") {
  sched::Options o;
  o.scenario = "bytes_strategy_test";
  o.strategy = ::sched::StrategyKind::kBytes;
  o.bytes = std::move(bytes);
  EXPECT_TRUE(::sched::Parse(backend, &o.backend));
  o.out = nullptr;
  o.verbosity = 0;
  o.schedule_out = ::testing::TempDir();
  return o;
}

// `threads` threads, each passing `points` decision points; returns the
// order in which the threads ran their steps ("0 0 1 ...").
std::string Order(const sched::Options& o, int threads, int points, sched::RunResult* out) {
  auto log = std::make_shared<std::string>();
  *out = sched::Run(o, [log, threads, points] {
    for (int t = 0; t < threads; ++t) {
      sched::Spawn("t" + std::to_string(t), [log, t, points] {
        for (int i = 0; i < points; ++i) {
          *log += std::to_string(t);
          sched::Point("step");
        }
      });
    }
  });
  return *log;
}

TEST(BytesStrategy, NoBytesMeansNoPreemption) {
  sched::RunResult r;
  EXPECT_EQ(Order(Opts({}), 3, 2, &r), "001122");
  EXPECT_FALSE(r.failed) << r.output;
  EXPECT_EQ(r.executions, 1u);
}

TEST(BytesStrategy, ZeroStaysOneSwitchesToTheNextTwoToTheOneAfter) {
  sched::RunResult r;
  // Decision 0 (no current thread): byte 1 picks the second runnable, t1.
  // t1's first point: 0 stays; its second: 1 -> the next, t2. t2's point:
  // 2 -> the second other after t2 (t0, t1), t1, which ends. The bytes are
  // used up: the lowest runnable, t0, runs to its end, then t2.
  for (const std::string& backend : {"fiber", "baton"}) {
    EXPECT_EQ(Order(Opts({1, 0, 1, 2}, backend), 3, 2, &r), "112002") << backend;
    EXPECT_FALSE(r.failed) << r.output;
  }
}

TEST(BytesStrategy, AnyBytesAreAValidScheduleAndRepeat) {
  for (int seed = 0; seed < 200; ++seed) {
    std::vector<uint8_t> bytes;
    for (int i = 0; i < seed % 40; ++i) bytes.push_back(static_cast<uint8_t>(seed * 37 + i * 101));
    sched::RunResult a, b;
    const std::string oa = Order(Opts(bytes), 1 + seed % 4, 1 + seed % 5, &a);
    const std::string ob = Order(Opts(bytes), 1 + seed % 4, 1 + seed % 5, &b);
    ASSERT_FALSE(a.failed) << a.output;
    EXPECT_EQ(oa, ob);
    EXPECT_EQ(a.last_trace_hash, b.last_trace_hash);
  }
}

int FilesIn(const std::string& dir) {
  int n = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (struct dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

TEST(BytesStrategy, WriteScheduleFalseWritesNoFile) {
  const std::string dir = ::testing::TempDir() + "/bytes_no_schedule/";
  sched::Options o = Opts({});
  o.schedule_out = dir;
  o.write_schedule = false;
  const sched::RunResult r = sched::Run(o, [] {
    sched::Spawn("fails", [] { sched::Fail("on purpose"); });
  });
  EXPECT_TRUE(r.failed);
  EXPECT_EQ(r.failure_kind, "check");
  EXPECT_TRUE(r.schedule_path.empty());
  EXPECT_EQ(r.output.find("schedule written"), std::string::npos) << r.output;
  EXPECT_EQ(FilesIn(dir), 0);
  o.write_schedule = true;  // the control: the same failure writes one
  const sched::RunResult w = sched::Run(o, [] {
    sched::Spawn("fails", [] { sched::Fail("on purpose"); });
  });
  EXPECT_FALSE(w.schedule_path.empty()) << w.output;
  EXPECT_EQ(FilesIn(dir), 1);
}

}  // namespace
