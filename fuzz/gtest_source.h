// fuzz/gtest_source.h: the GoogleTest case `reproduce --emit_gtest=PATH`
// writes: the input's bytes as an array, the same Decode + Execute, and
// EXPECT_TRUE(r.ok) with the failure report, so it fails while the bug is
// there, without libFuzzer, in any config (docs/fuzz.md says how to build it).
#ifndef FLOWCHECK_FUZZ_GTEST_SOURCE_H_
#define FLOWCHECK_FUZZ_GTEST_SOURCE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace flowcheck {
namespace fuzz {

struct GtestCase {
  std::string input_name;      // the input file's base name: names the test
  bool strict = false;         // --strict: upstream divergences fail
  std::vector<uint8_t> bytes;  // what the decoder reads of the input
  uint64_t input_size = 0;     // the file's size (> bytes.size() for a long input)
  std::string outcome;         // the report's first line, or "nothing (the input passed)"
};

// The source. Whatever bytes the file name holds (a newline, a backslash,
// "??/"), it appears only inside one comment line, escaped, and the test name
// is made of letters and digits: the source always compiles.
std::string GtestSource(const GtestCase& c);

// "crash-3f2a9c" -> "Crash3f2a9c": a valid, stable GoogleTest name.
std::string GtestName(const std::string& input_name);

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_GTEST_SOURCE_H_
