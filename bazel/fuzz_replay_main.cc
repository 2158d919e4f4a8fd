// Replay driver of every cc_fuzz_test's regression test (bazel/fuzz.bzl), in
// every config: runs LLVMFuzzerTestOneInput once on the empty input, then
// once on every file named on the command line (directories are walked, in
// sorted order). Arguments starting with '-' are libFuzzer flags and are
// ignored, so a _fuzzer command line can be replayed as is.
//
// A committed input must be one the target accepts: a file for which the
// target returns -1 (libFuzzer's "reject": flowcheck's targets return it when
// no decoder in this build accepts the header, e.g. a version with no decoder
// left) fails the test, named, after all files ran (exit 1). So does any other
// nonzero return (libFuzzer reserves them). The empty input may be rejected.
//
// A path that does not exist is an error (exit 2): a regression test must
// never pass because its inputs went missing. A failing input aborts inside
// the target, so the last "replay:" line names it.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

namespace {

void Collect(const std::string& path, std::vector<std::string>* out) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    std::fprintf(stderr, "replay: cannot stat %s: %s\n", path.c_str(), std::strerror(errno));
    std::exit(2);
  }
  if (!S_ISDIR(st.st_mode)) {
    out->push_back(path);
    return;
  }
  DIR* d = opendir(path.c_str());
  if (d == nullptr) {
    std::fprintf(stderr, "replay: cannot open directory %s: %s\n", path.c_str(),
                 std::strerror(errno));
    std::exit(2);
  }
  std::vector<std::string> names;
  while (struct dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      names.push_back(e->d_name);
    }
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) Collect(path + "/" + n, out);
}

// Runs the target on the file; returns what the target returned.
int RunOne(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    std::fprintf(stderr, "replay: cannot open %s: %s\n", path.c_str(), std::strerror(errno));
    std::exit(2);
  }
  std::vector<uint8_t> bytes;
  uint8_t buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    bytes.insert(bytes.end(), buf, buf + n);
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  // An exactly sized heap copy, so ASan sees reads past the end of the input.
  uint8_t* copy = static_cast<uint8_t*>(std::malloc(bytes.empty() ? 1 : bytes.size()));
  if (!bytes.empty()) std::memcpy(copy, bytes.data(), bytes.size());
  std::fprintf(stderr, "replay: %s (%zu bytes)\n", path.c_str(), bytes.size());
  const int ret = LLVMFuzzerTestOneInput(copy, bytes.size());
  std::free(copy);
  return ret;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    Collect(argv[i], &files);
  }
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(""), 0);
  std::vector<std::string> refused;
  for (const std::string& f : files) {
    const int ret = RunOne(f);
    if (ret == 0) continue;
    if (ret == -1) {
      std::fprintf(stderr,
                   "replay: REJECTED %s: the target returned -1: no decoder accepts it "
                   "(tools/reproduce.sh on it says why)\n",
                   f.c_str());
    } else {
      std::fprintf(stderr, "replay: REJECTED %s: the target returned %d (only 0 and -1 exist)\n",
                   f.c_str(), ret);
    }
    refused.push_back(f);
  }
  if (!refused.empty()) {
    std::fprintf(stderr, "replay: FAIL: %zu of %zu input(s) rejected:\n", refused.size(),
                 files.size());
    for (const std::string& f : refused) std::fprintf(stderr, "  %s\n", f.c_str());
    return 1;
  }
  std::fprintf(stderr, "replay: %zu input(s) OK (the empty input included)\n", files.size() + 1);
  return 0;
}
