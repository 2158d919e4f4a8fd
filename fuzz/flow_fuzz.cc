// fuzz/flow_fuzz.cc: libFuzzer target for the flow layer with 1..8 QPs:
// setup/clear, flush, RcvArray waits, RESYNC, wakeup work and the send
// engine's retries, checked step by step against the oracle and invariants.
// Input format 'F' (fuzz/input_format.h, docs/fuzz-format.md); the work is
// fuzz/executor.h's. FLOWCHECK_FUZZ_STRICT=1 makes upstream divergences fatal.
#include <cstddef>
#include <cstdint>

#include "fuzz/executor/fuzz_one_input.h"
#include "fuzz/input_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return flowcheck::fuzz::FuzzOneInput(flowcheck::fuzz::Format::kFlow, data, size);
}
