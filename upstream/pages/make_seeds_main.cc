// upstream/pages/make_seeds_main.cc: writes pages_fuzz's seed corpus
// (upstream/pages/corpus/pages_fuzz/seed-*) from the worked examples.
//
//   bazel run //upstream/pages:make_seeds              # writes into this checkout
//   bazel run //upstream/pages:make_seeds -- --check   # lists differences; exit 1 if any
//
// Files are written atomically and only when their bytes change; a seed-*
// file no example writes is reported, never deleted (common/generated_files.h).
#include "common/generated_files.h"
#include "upstream/pages/seed_files.h"

int main(int argc, char** argv) {
  return flowcheck::MakeSeedsMain(argc, argv, "//upstream/pages:make_seeds", pages::SeedFiles(),
                                  {pages::kSeedDir});
}
