// upstream/pages/seeds_test.cc: the committed seed corpus of pages_fuzz is
// exactly what the worked examples encode to (one source for the bytes).
#include "gtest/gtest.h"
#include "upstream/pages/seed_files.h"

namespace pages {
namespace {

TEST(Seeds, CommittedFilesAreWhatTheExamplesEncodeTo) {
  // The test runs in its runfiles tree, which holds the committed files.
  const std::vector<std::string> diffs =
      flowcheck::GeneratedDifferences(".", SeedFiles(), {kSeedDir});
  for (const std::string& d : diffs) ADD_FAILURE() << d;
  EXPECT_TRUE(diffs.empty()) << "run `bazel run //upstream/pages:make_seeds` and commit the result";
  EXPECT_GE(SeedFiles().size(), 20u);
}

}  // namespace
}  // namespace pages
