// upstream/pages/seed_files.h: the committed seed corpus of pages_fuzz, as
// the examples (examples.h) encode to (input.h). One source for the bytes:
// //upstream/pages:make_seeds writes them, //upstream/pages:seeds_test
// checks the committed files against them (common/generated_files.h).
#ifndef FLOWCHECK_UPSTREAM_PAGES_SEED_FILES_H_
#define FLOWCHECK_UPSTREAM_PAGES_SEED_FILES_H_

#include <vector>

#include "common/generated_files.h"

namespace pages {

// Where the seed files are, relative to the workspace root.
inline constexpr char kSeedDir[] = "upstream/pages/corpus/pages_fuzz";

// One file kSeedDir/seed-<example> per example. Aborts, naming the example,
// if one does not encode or two of one name encode differently.
std::vector<flowcheck::GeneratedFile> SeedFiles();

}  // namespace pages

#endif  // FLOWCHECK_UPSTREAM_PAGES_SEED_FILES_H_
