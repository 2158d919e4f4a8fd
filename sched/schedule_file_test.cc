// The schedule file format: what is written reads back identically, and
// every way a file can be unusable gets an error naming the line.
#include "sched/schedule_file.h"

#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace {

sched::Schedule Sample() {
  sched::Schedule s;
  s.scenario = "bitmap_alloc";
  s.params = {{"threads", "2"}, {"variant", "split"}};
  s.target = "//sched:sched_examples";
  s.sanitizer = "tsan";
  s.strategy = "pct";
  s.strategy_params = {{"depth", "3"}};
  s.seed = 42;
  s.execution = 17;
  s.backend = "fiber";
  s.max_steps = 10000;
  s.lockcheck_reports = "defer";
  s.failure = "check";
  s.trace_hash = 0x0123456789abcdefull;
  s.code = 0xfedcba9876543210ull;
  for (int i = 0; i < 37; ++i) s.decisions.push_back({i % 3, (i % 3 == 2) ? 0x6u : 0x7u});
  return s;
}

bool Same(const sched::Schedule& a, const sched::Schedule& b) {
  return a.scenario == b.scenario && a.params == b.params && a.target == b.target &&
         a.sanitizer == b.sanitizer && a.strategy == b.strategy &&
         a.strategy_params == b.strategy_params && a.seed == b.seed && a.execution == b.execution &&
         a.backend == b.backend && a.max_steps == b.max_steps &&
         a.lockcheck_reports == b.lockcheck_reports && a.failure == b.failure &&
         a.trace_hash == b.trace_hash && a.code == b.code && a.decisions == b.decisions;
}

TEST(ScheduleFileTest, WhatIsWrittenReadsBackTheSame) {
  const sched::Schedule s = Sample();
  const std::string text = sched::FormatSchedule(s);
  EXPECT_EQ(text.rfind("flowcheck-schedule 2\n", 0), 0u) << text;
  EXPECT_NE(text.find("\ncode fedcba9876543210\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nchecksum "), std::string::npos) << text;
  EXPECT_NE(text.find("\ndecisions 37\n0/7 1/7 2/6 0/7"), std::string::npos) << text;
  EXPECT_NE(text.find("\ntrace-hash 0123456789abcdef\n"), std::string::npos) << text;
  sched::Schedule back;
  std::string error;
  ASSERT_TRUE(sched::ParseSchedule(text, &back, &error)) << error;
  EXPECT_TRUE(Same(s, back)) << sched::FormatSchedule(back);

  const std::string path = ::testing::TempDir() + "/sample.schedule";
  ASSERT_EQ(sched::WriteScheduleFile(path, s), "");
  ASSERT_TRUE(sched::LoadScheduleFile(path, &back, &error)) << error;
  EXPECT_TRUE(Same(s, back));
}

struct BadCase {
  const char* what;
  std::string text;
  const char* error;
};

TEST(ScheduleFileTest, UnusableFilesAreRefusedWithTheLineAndTheReason) {
  const std::string good = sched::FormatSchedule(Sample());
  auto replace = [&good](const std::string& from, const std::string& to) {
    std::string t = good;
    size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return t.replace(at, from.size(), to);
  };
  const BadCase cases[] = {
      {"empty", "", "line 0: empty file: not a flowcheck schedule file"},
      {"another file", "hello\n", "line 1: not a flowcheck schedule file"},
      {"newer format", replace("flowcheck-schedule 2", "flowcheck-schedule 3"),
       "line 1: format version 3; this build reads versions 1 and 2"},
      {"edited decision", replace("0/7 1/7 2/6", "1/7 1/7 2/6"),
       "checksum mismatch: the file records "},
      {"edited parameter", replace("variant=split", "variant=atomic"),
       "the file was edited or corrupted"},
      {"edited failure", replace("failure check", "failure deadlock"), "checksum mismatch"},
      {"no checksum", replace("\nchecksum ", "\n# checksum "), "missing 'checksum'"},
      {"unknown key", replace("seed 42\n", "seed 42\ncolour blue\n"), "unknown key 'colour'"},
      {"twice", replace("seed 42\n", "seed 42\nseed 43\n"), "'seed' given twice"},
      {"not a number", replace("seed 42", "seed forty-two"), "'seed' is not a number: forty-two"},
      {"bad hash", replace("trace-hash 0123456789abcdef", "trace-hash 12"),
       "'trace-hash' is not 16 hex digits: 12"},
      {"bad decision", replace("0/7 1/7", "0/7 x/7"), "bad decision 'x/7'"},
      {"not runnable", replace("0/7 1/7 2/6", "0/7 1/7 0/6"),
       "decision '0/6' chooses a thread that is not in its runnable set"},
      {"count", replace("decisions 37", "decisions 38"), "'decisions 38' but 37 listed"},
      {"truncated", good.substr(0, good.size() - 4), "truncated: no 'end' line"},
      {"missing", replace("failure check\n", ""), "missing 'failure'"},
      {"bad mode", replace("lockcheck-reports defer", "lockcheck-reports maybe"),
       "expected 'lockcheck-reports end|defer|record'"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.what);
    sched::Schedule s;
    std::string error;
    EXPECT_FALSE(sched::ParseSchedule(c.text, &s, &error));
    EXPECT_NE(error.find(c.error), std::string::npos) << error;
    if (std::string(c.what) != "missing") {
      EXPECT_EQ(error.rfind("line ", 0), 0u) << error;
    }
  }
  sched::Schedule s;
  std::string error;
  EXPECT_FALSE(sched::LoadScheduleFile("/nonexistent-flowcheck/x.schedule", &s, &error));
  EXPECT_EQ(error, "cannot read /nonexistent-flowcheck/x.schedule: No such file or directory");
}

// Comment and blank lines are accepted wherever the parser accepts lines:
// before the header too (tools/reproduce.sh finds the header the same way).
TEST(ScheduleFileTest, CommentsAndBlankLinesAnywhere) {
  const std::string good = sched::FormatSchedule(Sample());
  std::string text = "# found by a campaign\n\n" + good;
  text.insert(text.find("seed 42\n"), "# a note\n");
  sched::Schedule back;
  std::string error;
  ASSERT_TRUE(sched::ParseSchedule(text, &back, &error)) << error;
  EXPECT_TRUE(Same(Sample(), back));
}

// Version 1 files (before code and checksum) are still read; they record no
// code (0), so a replay cannot tell the same code from a changed one.
TEST(ScheduleFileTest, VersionOneFilesAreStillRead) {
  std::string text = sched::FormatSchedule(Sample());
  text.replace(0, 20, "flowcheck-schedule 1");
  text.erase(text.find("code "), std::string("code fedcba9876543210\n").size());
  text.erase(text.find("checksum "), std::string("checksum 0123456789abcdef\n").size());
  sched::Schedule back;
  std::string error;
  ASSERT_TRUE(sched::ParseSchedule(text, &back, &error)) << error << "\n" << text;
  EXPECT_EQ(back.code, 0u);
  EXPECT_EQ(back.decisions, Sample().decisions);
  // A version 1 file with a code line is not version 1.
  EXPECT_FALSE(sched::ParseSchedule(
      sched::FormatSchedule(Sample()).replace(0, 20, "flowcheck-schedule 1"), &back, &error));
}

}  // namespace
