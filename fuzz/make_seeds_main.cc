// fuzz/make_seeds_main.cc: //fuzz:make_seeds writes the committed seed
// corpora (fuzz/corpus/<target>/seed-*) and dictionaries (fuzz/<target>.dict)
// from fuzz/seeds.cc and the op lists, through Encode.
//
//   bazel run //fuzz:make_seeds               # writes into this checkout
//   bazel run //fuzz:make_seeds -- --check    # lists what differs; exit 1 if anything
//   make_seeds --root=DIR                     # another checkout
//
// Files are written atomically and only when their bytes change; a seed-*
// file no seed writes is reported, never deleted (common/generated_files.h).
#include "common/generated_files.h"
#include "fuzz/seeds.h"

int main(int argc, char** argv) {
  return flowcheck::MakeSeedsMain(argc, argv, "//fuzz:make_seeds",
                                  flowcheck::fuzz::GeneratedFiles(), flowcheck::fuzz::SeedDirs());
}
