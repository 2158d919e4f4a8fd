// common/generated_files.cc: see generated_files.h.
#include "common/generated_files.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "common/atomic_file.h"

namespace flowcheck {
namespace {

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

int Usage(const char* why) {
  std::fprintf(stderr, "make_seeds: %s\nusage: make_seeds [--check] [--root=DIR]\n", why);
  return 2;
}

}  // namespace

std::vector<std::string> GeneratedDifferences(const std::string& root,
                                              const std::vector<GeneratedFile>& files,
                                              const std::vector<std::string>& seed_dirs) {
  std::vector<std::string> out;
  std::set<std::string> written;
  for (const GeneratedFile& g : files) {
    written.insert(g.path);
    std::string have;
    if (!ReadWholeFile(root + "/" + g.path, &have)) {
      out.push_back(g.path + " is missing");
    } else if (have != g.contents) {
      out.push_back(g.path + " differs from what its generator writes");
    }
  }
  for (const std::string& dir : seed_dirs) {
    DIR* d = opendir((root + "/" + dir).c_str());
    if (d == nullptr) continue;  // its files are reported above as missing
    while (struct dirent* e = readdir(d)) {
      const std::string path = dir + "/" + e->d_name;
      if (std::strncmp(e->d_name, "seed-", 5) == 0 && !written.count(path)) {
        out.push_back(path + " is no generated seed");
      }
    }
    closedir(d);
  }
  return out;
}

int MakeSeedsMain(int argc, char** argv, const char* label, const std::vector<GeneratedFile>& files,
                  const std::vector<std::string>& seed_dirs) {
  bool check = false;
  std::string root;
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) root = ws;  // bazel run
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check") {
      check = true;
    } else if (a.rfind("--root=", 0) == 0) {
      root = ResolveUserPath(a.substr(7));
    } else {
      return Usage(("unknown argument " + a).c_str());
    }
  }
  if (root.empty()) return Usage("no checkout: run it with `bazel run`, or pass --root=DIR");

  if (check) {
    const std::vector<std::string> diffs = GeneratedDifferences(root, files, seed_dirs);
    for (const std::string& d : diffs) std::fprintf(stderr, "make_seeds: %s\n", d.c_str());
    if (!diffs.empty()) {
      std::fprintf(stderr, "make_seeds: run `bazel run %s` and commit the result\n", label);
      return 1;
    }
    std::printf("make_seeds: every generated file in %s is what its generator writes\n",
                root.c_str());
    return 0;
  }
  int written = 0, unchanged = 0;
  for (const GeneratedFile& g : files) {
    const std::string path = root + "/" + g.path;
    std::string have;
    if (ReadWholeFile(path, &have) && have == g.contents) {
      ++unchanged;
      continue;
    }
    std::string error;
    if (!MakeParents(path, &error) || !(error = WriteFileAtomically(path, g.contents)).empty()) {
      std::fprintf(stderr, "make_seeds: %s\n", error.c_str());
      return 1;
    }
    std::printf("make_seeds: wrote %s\n", g.path.c_str());
    ++written;
  }
  for (const std::string& d : GeneratedDifferences(root, files, seed_dirs)) {
    std::printf("make_seeds: note: %s (not deleted)\n", d.c_str());
  }
  std::printf("make_seeds: %d file(s) written, %d unchanged\n", written, unchanged);
  return 0;
}

}  // namespace flowcheck
