// fuzz/empty_fuzz.cc: a target that does nothing, built with the same macro
// and flags as the real ones. Only tools/fuzz_benchmark.py runs it: its
// exec/s is libFuzzer's own ceiling on this machine, the yardstick for the
// real targets' speed.
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)data;
  (void)size;
  return 0;
}
