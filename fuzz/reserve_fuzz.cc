// fuzz/reserve_fuzz.cc: libFuzzer target for kern_reserve_flow / release
// sequences on one receive context (2 QPs), checked step by step against the
// oracle and the invariants.
// Input format 'R' (fuzz/input_format.h, docs/fuzz-format.md); the work is
// fuzz/executor.h's. FLOWCHECK_FUZZ_STRICT=1 makes upstream divergences fatal.
#include <cstddef>
#include <cstdint>

#include "fuzz/executor/fuzz_one_input.h"
#include "fuzz/input_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return flowcheck::fuzz::FuzzOneInput(flowcheck::fuzz::Format::kReserve, data, size);
}
