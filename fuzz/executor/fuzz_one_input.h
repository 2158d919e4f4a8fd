// fuzz/executor/fuzz_one_input.h: the body of every LLVMFuzzerTestOneInput
// of the sequential targets: decode, execute, report.
//
//   extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
//     return flowcheck::fuzz::FuzzOneInput(flowcheck::fuzz::Format::kReserve, data, size);
//   }
#ifndef FLOWCHECK_FUZZ_EXECUTOR_FUZZ_ONE_INPUT_H_
#define FLOWCHECK_FUZZ_EXECUTOR_FUZZ_ONE_INPUT_H_

#include <cstddef>
#include <cstdint>

#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {

// FLOWCHECK_FUZZ_STRICT=1 in the environment: upstream divergences fail.
bool StrictFromEnv();

// Returns -1 when no decoder accepts the bytes as `format` (another format,
// a version this build has no decoder for, a short header): libFuzzer then
// keeps the input out of the corpus, and the regression tests' replay
// (bazel/fuzz_replay_main.cc) fails on a committed file that gets -1.
// Returns 0 when the program passes; on failure prints the report and the
// reproduce command to stderr and aborts, as libFuzzer expects.
int FuzzOneInput(Format format, const uint8_t* data, size_t size);

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_EXECUTOR_FUZZ_ONE_INPUT_H_
