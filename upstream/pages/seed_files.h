// upstream/pages/seed_files.h: the committed seed corpus of pages_fuzz, as
// the examples (examples.h) encode to (input.h). One source for the bytes:
// //upstream/pages:make_seeds writes them, //upstream/pages:seeds_test
// checks the committed files against them.
#ifndef FLOWCHECK_UPSTREAM_PAGES_SEED_FILES_H_
#define FLOWCHECK_UPSTREAM_PAGES_SEED_FILES_H_

#include <map>
#include <vector>
#include <string>

namespace pages {

// Path relative to the workspace root -> contents. Aborts, naming the
// example, if one does not encode or two of one name encode differently.
std::map<std::string, std::string> SeedFiles();

// Each difference between SeedFiles() and the files under `root` (missing,
// different bytes), one line each; seed-* files no example writes included.
std::vector<std::string> SeedDifferences(const std::string& root);

}  // namespace pages

#endif  // FLOWCHECK_UPSTREAM_PAGES_SEED_FILES_H_
