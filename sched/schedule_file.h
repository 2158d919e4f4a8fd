// sched/schedule_file.h: the schedule file, what a failing controlled
// execution leaves behind so that it can be replayed exactly.
//
// A schedule names the scenario (and its parameters), how it was found
// (strategy, seed, execution number and the strategy's parameters), the run
// options a replay must reuse (step bound, lockcheck mode), the failure and
// the trace hash, and the decision list: at every decision, the thread chosen
// and the set of threads that were runnable. Replaying the decisions must
// give the same runnable sets, the same trace hash and the same failure; if
// not, the scenario has uncontrolled nondeterminism - when the code is the
// same: the file records which executable wrote it (`code`), and a replay on
// changed code that no longer fails is a fix, not nondeterminism. A checksum
// over everything the file records makes an edited or corrupted file an
// error, never a replay. The text format (version 2; version 1 files, without
// code and checksum, are still read) is specified in docs/sched.md.
//
// Files are written only through common/atomic_file.h.
#ifndef FLOWCHECK_SCHED_SCHEDULE_FILE_H_
#define FLOWCHECK_SCHED_SCHEDULE_FILE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sched {

inline constexpr int kScheduleFormatVersion = 2;

struct ScheduledDecision {
  int thread = 0;         // the thread chosen
  uint64_t runnable = 0;  // bit i: thread i was runnable
  bool operator==(const ScheduledDecision& o) const {
    return thread == o.thread && runnable == o.runnable;
  }
};

struct Schedule {
  std::string scenario;                       // registered scenario name
  std::map<std::string, std::string> params;  // scenario parameters
  std::string target;                         // Bazel target that can replay it ("" unknown)
  std::string sanitizer;                      // build it was found in: tsan, asan or none
  std::string strategy;                       // random, pct, dfs or replay
  std::map<std::string, std::string> strategy_params;  // e.g. depth=3
  uint64_t seed = 0;
  uint64_t execution = 0;  // 0-based index of the execution in its run
  std::string backend;     // fiber or baton
  uint64_t max_steps = 0;
  std::string lockcheck_reports = "end";  // Options::lockcheck_reports
  std::string failure;                    // failure kind, e.g. "deadlock", "check"
  uint64_t trace_hash = 0;
  // The executable that recorded it (ExecutableHash()); 0: unknown (a
  // version 1 file).
  uint64_t code = 0;
  std::vector<ScheduledDecision> decisions;
};

// FNV-1a 64 of this process's executable (/proc/self/exe), computed once;
// 0 if it cannot be read. Two builds of the same source give the same value
// (Bazel's builds are deterministic); any change to the code changes it.
uint64_t ExecutableHash();

// The file's text.
std::string FormatSchedule(const Schedule& s);

// Parses a schedule file's text. On error returns false and sets *error to
// one line naming the line number and what is wrong; a version 2 file whose
// checksum does not match its content is such an error ("checksum
// mismatch: the file was edited or corrupted"). Comment lines ('#') and
// blank lines are accepted anywhere, before the header too.
bool ParseSchedule(const std::string& text, Schedule* out, std::string* error);

// Reads and parses `path`; errors name the path.
bool LoadScheduleFile(const std::string& path, Schedule* out, std::string* error);

// Writes `s` to `path` atomically (common/atomic_file.h). Returns "" or the
// error line (path, step and errno text).
std::string WriteScheduleFile(const std::string& path, const Schedule& s);

}  // namespace sched

#endif  // FLOWCHECK_SCHED_SCHEDULE_FILE_H_
