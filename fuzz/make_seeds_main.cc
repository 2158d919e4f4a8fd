// fuzz/make_seeds_main.cc: //fuzz:make_seeds writes the committed seed
// corpora (fuzz/corpus/<target>/seed-*) and dictionaries (fuzz/<target>.dict)
// from fuzz/seeds.cc and the op lists, through Encode.
//
//   bazel run //fuzz:make_seeds               # writes into this checkout
//   bazel run //fuzz:make_seeds -- --check    # lists what differs; exit 1 if anything
//   make_seeds --root=DIR                     # another checkout
//
// Every file is written atomically (common/atomic_file.h) and only when its
// bytes change. A seed-* file that no seed writes is reported, never deleted
// (seeds only get added; removing one is a decision for a commit).
// Exit 0 done (or, with --check, nothing differs); 1 a write failed or
// --check found differences; 2 wrong flags.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "common/atomic_file.h"
#include "fuzz/seeds.h"

namespace {

int Usage(const char* why) {
  std::fprintf(stderr, "make_seeds: %s\nusage: make_seeds [--check] [--root=DIR]\n", why);
  return 2;
}

bool SameBytes(const std::string& path, const std::string& contents) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  const std::string have((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return have == contents;
}

// mkdir -p of the directory `path` is in.
bool MakeParents(const std::string& path, std::string* error) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      *error = "cannot create directory " + dir + ": " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool check = false;
  std::string root;
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) root = ws;  // bazel run
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check") {
      check = true;
    } else if (a.rfind("--root=", 0) == 0) {
      root = flowcheck::ResolveUserPath(a.substr(7));
    } else {
      return Usage(("unknown argument " + a).c_str());
    }
  }
  if (root.empty()) return Usage("no checkout: run it with `bazel run`, or pass --root=DIR");

  if (check) {
    const std::vector<std::string> diffs = flowcheck::fuzz::Differences(root);
    for (const std::string& d : diffs) std::fprintf(stderr, "make_seeds: %s\n", d.c_str());
    if (!diffs.empty()) {
      std::fprintf(stderr, "make_seeds: run `bazel run //fuzz:make_seeds` and commit the result\n");
      return 1;
    }
    std::printf("make_seeds: every seed and dictionary in %s is what it encodes to\n",
                root.c_str());
    return 0;
  }
  int written = 0, unchanged = 0;
  for (const flowcheck::fuzz::GeneratedFile& g : flowcheck::fuzz::GeneratedFiles()) {
    const std::string path = root + "/" + g.path;
    if (SameBytes(path, g.contents)) {
      ++unchanged;
      continue;
    }
    std::string error;
    if (!MakeParents(path, &error) ||
        !(error = flowcheck::WriteFileAtomically(path, g.contents)).empty()) {
      std::fprintf(stderr, "make_seeds: %s\n", error.c_str());
      return 1;
    }
    std::printf("make_seeds: wrote %s\n", g.path.c_str());
    ++written;
  }
  for (const std::string& d : flowcheck::fuzz::Differences(root)) {
    std::printf("make_seeds: note: %s (not deleted)\n", d.c_str());
  }
  std::printf("make_seeds: %d file(s) written, %d unchanged\n", written, unchanged);
  return 0;
}
