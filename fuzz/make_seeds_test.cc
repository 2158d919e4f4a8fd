// The committed seeds and dictionaries are exactly what fuzz/seeds.cc and the
// op lists encode to (so the bytes have one source: Encode), every seed
// decodes without dropping anything, and every op of every format is in some
// seed (a new op gets a seed, or this fails).
#include <set>
#include <string>
#include <vector>

#include "fuzz/input_format.h"
#include "fuzz/seeds.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace fuzz {
namespace {

TEST(MakeSeeds, CommittedFilesAreWhatTheEncoderProduces) {
  // The test runs in its runfiles tree, which holds the committed files.
  const std::vector<std::string> diffs = GeneratedDifferences(".", GeneratedFiles(), SeedDirs());
  for (const std::string& d : diffs) ADD_FAILURE() << d;
  EXPECT_TRUE(diffs.empty()) << "run `bazel run //fuzz:make_seeds` and commit the result";
}

TEST(MakeSeeds, SeedsDecodeWholeAndCoverEveryOp) {
  std::set<std::pair<Format, int>> used;
  for (const Seed& s : Seeds()) {
    const EncodeResult e = Encode(s.program);
    ASSERT_TRUE(e.ok()) << s.name << ": " << e.error;
    const DecodeResult d = Decode(e.bytes.data(), e.bytes.size());
    ASSERT_TRUE(d.ok()) << s.name;
    EXPECT_FALSE(d.program.ops.empty()) << s.name;
    EXPECT_EQ(d.program.ops, s.program.ops) << s.name;
    for (const FuzzOp& op : d.program.ops) used.insert({d.program.format, op.code});
  }
  for (Format f : {Format::kReserve, Format::kFlow, Format::kPure}) {
    int count = 0;
    const OpSpec* ops = OpsOf(f, &count);
    for (int code = 0; code < count; ++code) {
      EXPECT_TRUE(used.count({f, code})) << TargetName(f) << ": no seed uses " << ops[code].name;
    }
  }
}

}  // namespace
}  // namespace fuzz
}  // namespace flowcheck
