// common/atomic_file.h: write an artifact so that no reader, interrupt or
// kill ever sees it half written; read a file whole.
//
//   std::string error = flowcheck::WriteFileAtomically(path, json);
//   if (!error.empty()) { fprintf(stderr, "%s\n", error.c_str()); return 1; }
//
// Every file the harness produces (JSON summaries, schedule and crash files,
// generated tests) goes through here: the bytes go to a temporary file in the
// same directory, which is fsync'ed and then renamed over `path`, and the
// directory is fsync'ed. A reader sees the old file or the new one, never a
// prefix; a failed write leaves the old file untouched and no temporary.
//
// AtomicFileWriter splits the same steps so that a crash path can use them:
// construct it (allocates) while the process is healthy, then call
// WriteSignalSafe from a signal handler or sanitizer death callback; it uses
// only open/write/fsync/rename/unlink and the buffers it prepared.
#ifndef FLOWCHECK_COMMON_ATOMIC_FILE_H_
#define FLOWCHECK_COMMON_ATOMIC_FILE_H_

#include <cstddef>
#include <string>

namespace flowcheck {

// Writes `contents` to `path` atomically. Returns "" on success, else one
// line naming the path, the failing step and strerror(errno), e.g.
// "cannot write /nonexistent/dir/x.json: create failed: No such file or directory".
std::string WriteFileAtomically(const std::string& path, const std::string& contents);

class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::string& path);
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  const std::string& path() const { return path_; }

  // Async-signal-safe. Returns 0 on success, else the errno of the failing
  // step (the temporary is removed). `step` (if not null) is set to a static
  // string naming it: "create", "write", "fsync", "close", "rename".
  int WriteSignalSafe(const char* data, size_t size, const char** step = nullptr) const;

 private:
  std::string path_;
  std::string tmp_;  // same directory, unique per process
  std::string dir_;  // for the directory fsync
};

// Whether WriteFileAtomically(path, ...) can succeed, asked before a long
// run so that a bad path fails fast: "" if the directory exists and is
// writable and `path` is not a directory, else one line naming the path and
// the reason (errno text where there is one).
std::string CheckArtifactPath(const std::string& path);

// Reads the whole file at `path` (bytes as they are) into *out; false if it
// cannot be opened or read (a directory too), *out then unchanged.
bool ReadWholeFile(const std::string& path, std::string* out);

// Where a path the user typed refers to. Relative paths are taken from the
// directory the user ran the command in: `bazel run` starts the binary in its
// runfiles tree and passes that directory as BUILD_WORKING_DIRECTORY, which
// wins over the current directory when set. Absolute paths are returned as is.
std::string ResolveUserPath(const std::string& path);

}  // namespace flowcheck

#endif  // FLOWCHECK_COMMON_ATOMIC_FILE_H_
