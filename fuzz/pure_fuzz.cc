// fuzz/pure_fuzz.cc: libFuzzer target for core's pure functions: generation
// arithmetic, register encoding, kern_reserve_flow on any flow_mask,
// position_in_queue, bit operations; against the oracle's formulas.
// Input format 'P' (fuzz/input_format.h, docs/fuzz-format.md); the work is
// fuzz/executor.h's. FLOWCHECK_FUZZ_STRICT=1 makes upstream divergences fatal.
#include <cstddef>
#include <cstdint>

#include "fuzz/executor/fuzz_one_input.h"
#include "fuzz/input_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return flowcheck::fuzz::FuzzOneInput(flowcheck::fuzz::Format::kPure, data, size);
}
