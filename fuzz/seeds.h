// fuzz/seeds.h: the committed seed corpora and libFuzzer dictionaries, as
// programs and op records that Encode (fuzz/input_format.h) turns into bytes.
// `bazel run //fuzz:make_seeds` writes them; //fuzz:make_seeds_test fails
// while a committed file differs from what they encode to.
//
// Seeds only ever get added: each is a small hand-written program aimed at
// one behaviour the fuzzer should start from (every class of `last`, a full
// bitmap, the FIFO hand-off, RESYNC at the generation wrap, [R-1], ...).
// //fuzz:<target> replays all of them in every config.
#ifndef FLOWCHECK_FUZZ_SEEDS_H_
#define FLOWCHECK_FUZZ_SEEDS_H_

#include <string>
#include <vector>

#include "common/generated_files.h"
#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {

struct Seed {
  std::string name;  // the file is fuzz/corpus/<target>/seed-<name>
  Program program;
};

// Every seed of every target, in a fixed order.
std::vector<Seed> Seeds();

// The text of fuzz/<target>.dict: the header, one record per op of the
// format's op list (fuzz/op_table.h) with its arguments 0, a few records
// with interesting arguments, and some 32-bit values (fuzz/dictionaries.cc).
std::string DictionaryText(Format f);

// sched_fuzz's seeds and dictionary (fuzz/sched_fuzz_seeds.cc); Seeds()
// and DictionaryText(Format::kSched) include them.
std::vector<Seed> SchedSeeds();
std::string SchedDictionaryText();

// Every seed file and dictionary (paths relative to the repository's root).
// Aborts with the message if a seed does not encode (a seed written wrong:
// //fuzz:make_seeds_test shows it first).
std::vector<GeneratedFile> GeneratedFiles();

// Where the seed files are: fuzz/corpus/<target> of each format.
std::vector<std::string> SeedDirs();

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_SEEDS_H_
