// common/generated_files_test.cc: the differences name every file that is
// missing, differs or is a seed no generator writes; make_seeds writes what
// differs, leaves the rest alone, never deletes, and --check fails until the
// checkout matches.
#include "common/generated_files.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock-matchers.h"
#include "gmock/gmock-more-matchers.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::string ScratchDir() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string templ = std::string(tmp != nullptr ? tmp : "/tmp") + "/generated_XXXXXX";
  const char* dir = mkdtemp(templ.data());
  EXPECT_NE(dir, nullptr);
  return dir != nullptr ? dir : "/tmp";
}

void Write(const std::string& path, const std::string& contents) {
  std::ofstream(path, std::ios::binary) << contents;
}

std::string Read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

int MakeSeeds(const std::string& root, bool check, const std::vector<GeneratedFile>& files) {
  std::string root_flag = "--root=" + root;
  std::string check_flag = "--check";
  std::vector<char*> argv = {const_cast<char*>("make_seeds"), root_flag.data()};
  if (check) argv.push_back(check_flag.data());
  return MakeSeedsMain(static_cast<int>(argv.size()), argv.data(), "//x:make_seeds", files,
                       {"corpus/t"});
}

const std::vector<GeneratedFile> kFiles = {{"corpus/t/seed-a", "A"}, {"corpus/t/seed-b", "B"},
                                           {"t.dict", "kw=\"x\"\n"}};

TEST(GeneratedFiles, DifferencesNameMissingChangedAndUnknownSeeds) {
  const std::string root = ScratchDir();
  ASSERT_EQ(mkdir((root + "/corpus").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((root + "/corpus/t").c_str(), 0755), 0);
  Write(root + "/corpus/t/seed-a", "A");
  Write(root + "/corpus/t/seed-b", "not B");
  Write(root + "/corpus/t/seed-old", "?");
  Write(root + "/corpus/t/crash-1", "?");  // not a seed: none of the generator's business
  EXPECT_THAT(GeneratedDifferences(root, kFiles, {"corpus/t"}),
              ElementsAre("corpus/t/seed-b differs from what its generator writes",
                          "t.dict is missing", "corpus/t/seed-old is no generated seed"));
}

TEST(GeneratedFiles, MakeSeedsWritesWhatDiffersAndCheckAgrees) {
  const std::string root = ScratchDir();
  EXPECT_EQ(MakeSeeds(root, /*check=*/true, kFiles), 1);  // nothing written yet
  EXPECT_EQ(MakeSeeds(root, /*check=*/false, kFiles), 0);  // parent directories made
  EXPECT_EQ(Read(root + "/corpus/t/seed-b"), "B");
  EXPECT_EQ(Read(root + "/t.dict"), "kw=\"x\"\n");
  EXPECT_EQ(MakeSeeds(root, /*check=*/true, kFiles), 0);
  EXPECT_THAT(GeneratedDifferences(root, kFiles, {"corpus/t"}), IsEmpty());

  Write(root + "/corpus/t/seed-a", "changed");
  Write(root + "/corpus/t/seed-old", "kept");
  EXPECT_EQ(MakeSeeds(root, /*check=*/true, kFiles), 1);
  EXPECT_EQ(MakeSeeds(root, /*check=*/false, kFiles), 0);
  EXPECT_EQ(Read(root + "/corpus/t/seed-a"), "A");
  EXPECT_EQ(Read(root + "/corpus/t/seed-old"), "kept");  // reported, never deleted
  EXPECT_EQ(MakeSeeds(root, /*check=*/true, kFiles), 1);
}

TEST(GeneratedFiles, MakeSeedsRefusesUnknownArgumentsAndNoCheckout) {
  std::vector<char*> bad = {const_cast<char*>("make_seeds"), const_cast<char*>("--frobnicate")};
  EXPECT_EQ(MakeSeedsMain(2, bad.data(), "//x:make_seeds", kFiles, {}), 2);
  unsetenv("BUILD_WORKSPACE_DIRECTORY");
  EXPECT_EQ(MakeSeedsMain(1, bad.data(), "//x:make_seeds", kFiles, {}), 2);
}

}  // namespace
}  // namespace flowcheck
