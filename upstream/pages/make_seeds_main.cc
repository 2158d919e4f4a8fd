// upstream/pages/make_seeds_main.cc: writes pages_fuzz's seed corpus
// (upstream/pages/corpus/pages_fuzz/seed-*) from the worked examples.
//
//   bazel run //upstream/pages:make_seeds              # writes into this checkout
//   bazel run //upstream/pages:make_seeds -- --check   # lists differences; exit 1 if any
//
// Files are written atomically and only when their bytes change; a seed-*
// file no example writes is reported, never deleted. Exit 0 done, 1 a write
// failed or --check found differences, 2 wrong usage.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/atomic_file.h"
#include "upstream/pages/seed_files.h"

int main(int argc, char** argv) {
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (ws == nullptr) {
    std::fprintf(stderr, "make_seeds: run it with `bazel run //upstream/pages:make_seeds`\n");
    return 2;
  }
  const std::string root = ws;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--check") == 0) {
      check = true;
    } else {
      std::fprintf(stderr, "make_seeds: unknown argument %s\nusage: make_seeds [--check]\n",
                   argv[i]);
      return 2;
    }
  }
  const std::vector<std::string> diffs = pages::SeedDifferences(root);
  if (check) {
    for (const std::string& d : diffs) std::fprintf(stderr, "make_seeds: %s\n", d.c_str());
    return diffs.empty() ? 0 : 1;
  }
  const std::string dir = root + "/upstream/pages/corpus";
  for (const std::string& d : {dir, dir + "/pages_fuzz"}) {
    if (mkdir(d.c_str(), 0755) != 0 && errno != EEXIST) {
      std::fprintf(stderr, "make_seeds: cannot create %s: %s\n", d.c_str(), std::strerror(errno));
      return 1;
    }
  }
  int written = 0;
  for (const auto& [path, contents] : pages::SeedFiles()) {
    bool differs = false;
    for (const std::string& d : diffs) differs |= d == "missing: " + path || d == "differs: " + path;
    if (!differs) continue;
    const std::string error = flowcheck::WriteFileAtomically(root + "/" + path, contents);
    if (!error.empty()) {
      std::fprintf(stderr, "make_seeds: %s\n", error.c_str());
      return 1;
    }
    written++;
  }
  for (const std::string& d : diffs) {
    if (d.rfind("no example writes", 0) == 0) std::fprintf(stderr, "make_seeds: %s\n", d.c_str());
  }
  std::printf("make_seeds: %d file(s) written\n", written);
  return 0;
}
