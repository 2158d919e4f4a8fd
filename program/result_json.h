// program/result_json.h: the one writer of the engine's JSON documents
// (--json_out), for every way a run ends.
//
// The contract tools/campaign.py relies on: one JSON object with
//   "result"  "pass" | "fail" | "interrupted"
//   "seed"    the run seed (a number)
//   "rerun"   the exact command that reruns it
// and then, by result:
//   pass         "tsan", the run's shape ("threads", "contexts",
//                "qps_per_thread", "yield_probability") and figures
//                ("seconds", "ops", "ops_per_second", "checks_passed",
//                "work_items", "yields", "counters", "upstream_divergences")
//   interrupted  the same as pass (the figures so far; the drain and final
//                checks passed) plus "interrupted_by": "SIGINT" | "SIGTERM";
//                or, when a second signal ended the process at once, only
//                "interrupted_by" and "detail"
//   fail         "failure": the marker ("invariant F1", "watchdog",
//                "lockcheck: <rule> on <lock class>", "sanitizer report",
//                "abort") and "detail" (the report's first line or a pointer
//                to the log)
// Every number is finite (JSON has no NaN or infinity: one would be null).
//
// And the file side of --json_out. Every write goes through
// common/atomic_file.h (temporary in the same directory, fsync, rename), so
// a reader sees the previous file or the new one, never a prefix.
//
//   path = flowcheck::ResolveUserPath(flag);        // relative to where the user ran
//   if (std::string e = flowcheck::CheckArtifactPath(path); !e.empty()) { ...; return 2; }
//   ... run ...
//   if (std::string e = flowcheck::WriteFileAtomically(path, json); !e.empty()) ...
//
// Crash paths (a signal handler, a sanitizer's death callback) cannot
// allocate: they write a PreparedJson built while the process was healthy.
#ifndef FLOWCHECK_PROGRAM_RESULT_JSON_H_
#define FLOWCHECK_PROGRAM_RESULT_JSON_H_

#include <string>

#include "common/atomic_file.h"
#include "program/config.h"
#include "program/driver.h"

namespace flowcheck {
namespace program {

// "pass", or "interrupted" by `interrupted_by` (a signal number) if nonzero.
std::string ResultJson(const StressResult& r, int interrupted_by = 0);

// A failure of the run configured by `c` (its seed resolved).
std::string FailureJson(const std::string& what, const std::string& detail,
                        const StressConfig& c);

// A run ended by signal `signal` before it could finish (no figures).
std::string InterruptedJson(int signal, const std::string& detail, const StressConfig& c);

// "SIGINT", "SIGTERM", else "signal <n>".
std::string SignalName(int signal);

// `v` as a JSON number (the shortest form that reads back as `v`), "null"
// if not finite.
std::string JsonNumber(double v);

// A document and the writer that will put it at `path`, ready before it is
// needed.
class PreparedJson {
 public:
  PreparedJson(const std::string& path, std::string json);

  // Async-signal-safe. Writes the document atomically; on failure prints
  // "flowcheck: cannot write <path>: <step> failed: <errno text>" to stderr
  // and returns the errno (0 on success).
  int Write() const;

 private:
  AtomicFileWriter writer_;
  const std::string json_;
};

// Async-signal-safe: writes `s` to stderr (best effort).
void WriteStderr(const char* s);

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_RESULT_JSON_H_
