// common/atomic_file_test.cc: the writer replaces whole files, reports every
// failure with the path and errno text, and leaves no temporary behind.
#include "common/atomic_file.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string ScratchDir() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string templ = std::string(tmp != nullptr ? tmp : "/tmp") + "/atomic_file_XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  const char* dir = mkdtemp(buf.data());
  EXPECT_NE(dir, nullptr);
  return dir != nullptr ? dir : "/tmp";
}

std::string Read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  closedir(d);
  return out;
}

TEST(WriteFileAtomically, CreatesAndReplacesWholeFiles) {
  const std::string dir = ScratchDir();
  const std::string path = dir + "/summary.json";
  ASSERT_EQ(WriteFileAtomically(path, "{\"result\": \"pass\"}\n"), "");
  EXPECT_EQ(Read(path), "{\"result\": \"pass\"}\n");
  ASSERT_EQ(WriteFileAtomically(path, "short"), "");
  EXPECT_EQ(Read(path), "short");  // replaced, not overwritten in place
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"summary.json"});
}

TEST(WriteFileAtomically, MissingDirectoryIsAnErrorWithPathAndErrno) {
  const std::string error = WriteFileAtomically("/nonexistent/dir/x.json", "{}");
  EXPECT_THAT(error, HasSubstr("/nonexistent/dir/x.json"));
  EXPECT_THAT(error, HasSubstr("No such file or directory"));
}

TEST(WriteFileAtomically, ATargetThatIsADirectoryFailsAndLeavesNoTemporary) {
  const std::string dir = ScratchDir();
  const std::string path = dir + "/taken";
  ASSERT_EQ(mkdir(path.c_str(), 0755), 0);
  const std::string error = WriteFileAtomically(path, "data");
  EXPECT_THAT(error, HasSubstr("rename failed"));
  EXPECT_THAT(error, HasSubstr(path));
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"taken"});  // the temporary is gone
}

TEST(WriteFileAtomically, AKilledWriterNeverLeavesAPartialFile) {
  // A child rewrites the file in a loop with two different contents and is
  // killed at some point; the file must then hold one of them, whole.
  const std::string dir = ScratchDir();
  const std::string path = dir + "/artifact";
  const std::string a(1 << 16, 'a'), b(1 << 17, 'b');
  ASSERT_EQ(WriteFileAtomically(path, a), "");
  for (int round = 0; round < 5; ++round) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (int i = 0;; ++i) {
        if (!WriteFileAtomically(path, i % 2 ? a : b).empty()) _exit(3);
      }
    }
    usleep(2000 * (round + 1));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    const std::string now = Read(path);
    EXPECT_TRUE(now == a || now == b) << "partial file of " << now.size() << " bytes";
  }
}

TEST(AtomicFileWriter, SignalSafeWriteReportsTheStep) {
  AtomicFileWriter writer("/nonexistent/dir/fail.json");
  const char* step = nullptr;
  EXPECT_NE(writer.WriteSignalSafe("x", 1, &step), 0);
  EXPECT_STREQ(step, "create");
}

TEST(CheckArtifactPath, NamesWhyAPathCannotBeWritten) {
  const std::string dir = ScratchDir();
  EXPECT_EQ(CheckArtifactPath(dir + "/x.json"), "");
  EXPECT_THAT(CheckArtifactPath("/nonexistent/dir/x.json"), HasSubstr("No such file or directory"));
  EXPECT_THAT(CheckArtifactPath(dir + "/"), HasSubstr("no file name"));
  EXPECT_THAT(CheckArtifactPath(dir), HasSubstr("it is a directory"));
  ASSERT_EQ(WriteFileAtomically(dir + "/plain", "x"), "");
  EXPECT_THAT(CheckArtifactPath(dir + "/plain/x.json"), HasSubstr("is not a directory"));
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"plain"});  // checks only, writes nothing
}

TEST(ReadWholeFile, ReadsEveryByteAndFailsOnWhatIsNoReadableFile) {
  const std::string dir = ScratchDir();
  const std::string bytes("seed\0\r\n\xff", 8);
  ASSERT_EQ(WriteFileAtomically(dir + "/seed-x", bytes), "");
  std::string got = "old";
  ASSERT_TRUE(ReadWholeFile(dir + "/seed-x", &got));
  EXPECT_EQ(got, bytes);
  got = "old";
  EXPECT_FALSE(ReadWholeFile(dir + "/missing", &got));
  EXPECT_FALSE(ReadWholeFile(dir, &got));
  EXPECT_EQ(got, "old");
}

TEST(ResolveUserPath, RelativePathsFollowBuildWorkingDirectory) {
  EXPECT_EQ(ResolveUserPath("/abs/x.json"), "/abs/x.json");
  setenv("BUILD_WORKING_DIRECTORY", "/home/user/project", 1);
  EXPECT_EQ(ResolveUserPath("rel.json"), "/home/user/project/rel.json");
  unsetenv("BUILD_WORKING_DIRECTORY");
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  EXPECT_EQ(ResolveUserPath("rel.json"), std::string(cwd) + "/rel.json");
  EXPECT_THAT(ResolveUserPath(""), IsEmpty());
}

}  // namespace
}  // namespace flowcheck
