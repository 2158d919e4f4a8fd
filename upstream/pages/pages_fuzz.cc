// upstream/pages/pages_fuzz.cc: libFuzzer target over the kernel's own page
// helpers (tid_rdma_find_phys_blocks_4k/_8k, tid_flush_pages compiled as C
// from tid_rdma.c): each input is a page list (run through both find
// helpers) or one flush call (upstream/pages/input.h), judged by CheckCase
// (the rules of check.h, then the oracle). The first failure prints the
// report and aborts. Upstream mode only: bazel build --config=upstream
// --config=fuzz //upstream/pages:pages_fuzz_fuzzer.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "upstream/pages/check.h"
#include "upstream/pages/input.h"
#include "upstream/pages/real_kernel.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const pages::KernelPages kernel = pages::RealKernel();
  for (const pages::Case& c : pages::Decode(data, size)) {
    const std::string report = pages::CheckCase(kernel, c);
    if (!report.empty()) {
      std::fprintf(stderr, "pages_fuzz: FAIL %s", report.c_str());
      std::abort();
    }
  }
  return 0;
}
