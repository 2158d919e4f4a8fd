// upstream/pages/seed_files.cc: see seed_files.h.
#include "upstream/pages/seed_files.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "upstream/pages/examples.h"
#include "upstream/pages/input.h"

namespace pages {

std::vector<flowcheck::GeneratedFile> SeedFiles() {
  std::map<std::string, std::string> files;  // path -> contents
  for (const Example& e : Examples()) {
    std::vector<uint8_t> bytes;
    std::string why;
    if (!Encode(e.c, &bytes, &why)) {
      std::fprintf(stderr, "seed_files: example %s does not encode: %s\n", e.name.c_str(),
                   why.c_str());
      std::abort();
    }
    const std::string path = std::string(kSeedDir) + "/seed-" + e.name;
    const std::string contents(bytes.begin(), bytes.end());
    auto [it, fresh] = files.emplace(path, contents);
    if (!fresh && it->second != contents) {
      std::fprintf(stderr, "seed_files: examples named %s encode differently\n", e.name.c_str());
      std::abort();
    }
  }
  std::vector<flowcheck::GeneratedFile> out;
  for (const auto& [path, contents] : files) out.push_back({path, contents});
  return out;
}

}  // namespace pages
