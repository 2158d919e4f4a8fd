// common/atomic_file.cc: see atomic_file.h.
#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace flowcheck {
namespace {

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string BaseOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(const std::string& path)
    : path_(path),
      tmp_(DirOf(path) + "/." + BaseOf(path) + ".tmp." + std::to_string(getpid())),
      dir_(DirOf(path)) {}

int AtomicFileWriter::WriteSignalSafe(const char* data, size_t size, const char** step) const {
  const char* ignored;
  if (step == nullptr) step = &ignored;
  *step = "create";
  const int fd = open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  int err = 0;
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      *step = "write";
      break;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  if (err == 0 && fsync(fd) != 0) {
    err = errno;
    *step = "fsync";
  }
  if (close(fd) != 0 && err == 0) {
    err = errno;
    *step = "close";
  }
  if (err == 0 && rename(tmp_.c_str(), path_.c_str()) != 0) {
    err = errno;
    *step = "rename";
  }
  if (err != 0) {
    unlink(tmp_.c_str());
    return err;
  }
  // Make the rename itself durable. A failure here cannot un-write the file,
  // so it is not reported.
  const int dfd = open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return 0;
}

std::string WriteFileAtomically(const std::string& path, const std::string& contents) {
  AtomicFileWriter writer(path);
  const char* step = nullptr;
  const int err = writer.WriteSignalSafe(contents.data(), contents.size(), &step);
  if (err == 0) return "";
  return "cannot write " + path + ": " + step + " failed: " + std::strerror(err);
}

std::string CheckArtifactPath(const std::string& path) {
  const std::string head = "cannot write " + path + ": ";
  if (path.empty() || path.back() == '/') return head + "no file name";
  const std::string dir = DirOf(path);
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) return head + "directory " + dir + ": " + std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return head + dir + " is not a directory";
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return head + "directory " + dir + ": " + std::strerror(errno);
  }
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return head + "it is a directory";
  return "";
}

bool ReadWholeFile(const std::string& path, std::string* out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  std::string bytes;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
  const bool ok = std::ferror(f) == 0;  // a directory opens, and fails here (EISDIR)
  std::fclose(f);
  if (ok) *out = std::move(bytes);
  return ok;
}

std::string ResolveUserPath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (wd != nullptr && wd[0] != '\0') return std::string(wd) + "/" + path;
  char buf[4096];
  if (getcwd(buf, sizeof(buf)) != nullptr) return std::string(buf) + "/" + path;
  return path;
}

}  // namespace flowcheck
