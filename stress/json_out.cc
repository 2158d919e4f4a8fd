// stress/json_out.cc: see json_out.h.
#include "stress/json_out.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace flowcheck {
namespace stress {
void WriteStderr(const char* s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = write(STDERR_FILENO, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

PreparedJson::PreparedJson(const std::string& path, std::string json)
    : writer_(path), json_(std::move(json)) {}

int PreparedJson::Write() const {
  const char* step = nullptr;
  const int err = writer_.WriteSignalSafe(json_.data(), json_.size(), &step);
  if (err != 0) {
    // strerrordesc_np is async-signal-safe (glibc >= 2.32); strerror is not.
    const char* text = strerrordesc_np(err);
    WriteStderr("flowcheck: cannot write ");
    WriteStderr(writer_.path().c_str());
    WriteStderr(": ");
    WriteStderr(step != nullptr ? step : "write");
    WriteStderr(" failed: ");
    WriteStderr(text != nullptr ? text : "unknown error");
    WriteStderr("\n");
  }
  return err;
}

}  // namespace stress
}  // namespace flowcheck
