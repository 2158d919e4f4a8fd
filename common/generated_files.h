// common/generated_files.h: files a generator owns in the checkout (the fuzz
// targets' seed corpora and dictionaries), and the one make_seeds command
// that writes or checks them.
//
//   int main(int argc, char** argv) {
//     return flowcheck::MakeSeedsMain(argc, argv, "//fuzz:make_seeds", GeneratedFiles(),
//                                     {"fuzz/corpus/flow_fuzz"});
//   }
//
// Seeds only get added: a seed-* file that no generated file is gets
// reported, never deleted (removing one is a decision for a commit).
#ifndef FLOWCHECK_COMMON_GENERATED_FILES_H_
#define FLOWCHECK_COMMON_GENERATED_FILES_H_

#include <string>
#include <vector>

namespace flowcheck {

struct GeneratedFile {
  std::string path;  // relative to the checkout's root
  std::string contents;
};

// What differs between `files` and the tree at `root` (a checkout, or a
// test's runfiles tree), one sentence each: a file missing or with other
// bytes, and a seed-* file in one of `seed_dirs` (relative to `root`) that
// is none of `files`.
std::vector<std::string> GeneratedDifferences(const std::string& root,
                                              const std::vector<GeneratedFile>& files,
                                              const std::vector<std::string>& seed_dirs);

// The whole of a make_seeds binary, `label` its Bazel label. The checkout is
// `bazel run`'s workspace, or --root=DIR. Writes every file of `files` whose
// bytes differ (atomically, common/atomic_file.h; parent directories made)
// and notes seed-* files none of them is; --check only lists what differs.
// Returns the exit status: 0 done (with --check: nothing differs), 1 a write
// failed or --check found differences, 2 wrong usage.
int MakeSeedsMain(int argc, char** argv, const char* label, const std::vector<GeneratedFile>& files,
                  const std::vector<std::string>& seed_dirs);

}  // namespace flowcheck

#endif  // FLOWCHECK_COMMON_GENERATED_FILES_H_
