// upstream/pages/seed_files.cc: see seed_files.h.
#include "upstream/pages/seed_files.h"

#include <dirent.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "upstream/pages/examples.h"
#include "upstream/pages/input.h"

namespace pages {

namespace {
constexpr char kCorpusDir[] = "upstream/pages/corpus/pages_fuzz";
}

std::map<std::string, std::string> SeedFiles() {
  std::map<std::string, std::string> files;
  for (const Example& e : Examples()) {
    std::vector<uint8_t> bytes;
    std::string why;
    if (!Encode(e.c, &bytes, &why)) {
      std::fprintf(stderr, "seed_files: example %s does not encode: %s\n", e.name.c_str(),
                   why.c_str());
      std::abort();
    }
    const std::string path = std::string(kCorpusDir) + "/seed-" + e.name;
    const std::string contents(bytes.begin(), bytes.end());
    auto [it, fresh] = files.emplace(path, contents);
    if (!fresh && it->second != contents) {
      std::fprintf(stderr, "seed_files: examples named %s encode differently\n", e.name.c_str());
      std::abort();
    }
  }
  return files;
}

std::vector<std::string> SeedDifferences(const std::string& root) {
  std::vector<std::string> diffs;
  const std::map<std::string, std::string> want = SeedFiles();
  for (const auto& [path, contents] : want) {
    std::ifstream in(root + "/" + path, std::ios::binary);
    if (!in) {
      diffs.push_back("missing: " + path);
      continue;
    }
    const std::string have((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (have != contents) diffs.push_back("differs: " + path);
  }
  if (DIR* d = opendir((root + "/" + kCorpusDir).c_str())) {
    while (struct dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.rfind("seed-", 0) == 0 && !want.count(std::string(kCorpusDir) + "/" + name)) {
        diffs.push_back("no example writes: " + std::string(kCorpusDir) + "/" + name);
      }
    }
    closedir(d);
  }
  return diffs;
}

}  // namespace pages
