// stress/json_out.h: the file side of --json_out. Every write goes through
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
#ifndef FLOWCHECK_STRESS_JSON_OUT_H_
#define FLOWCHECK_STRESS_JSON_OUT_H_

#include <string>

#include "common/atomic_file.h"

namespace flowcheck {
namespace stress {

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

}  // namespace stress
}  // namespace flowcheck

#endif  // FLOWCHECK_STRESS_JSON_OUT_H_
