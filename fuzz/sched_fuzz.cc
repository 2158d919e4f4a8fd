// fuzz/sched_fuzz.cc: the concurrent libFuzzer target. An input ('S' format,
// docs/fuzz-format.md) holds 2-4 threads' flow-op lists and the scheduling
// bytes; one controlled execution runs them interleaved as the bytes say
// (fuzz/executor/sched_executor.h), so a crash file is the whole
// reproduction: tools/reproduce.sh --target=sched_fuzz FILE.
// FLOWCHECK_FUZZ_STRICT=1 makes upstream divergences and the flush hazard
// failures.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz/executor/fuzz_one_input.h"
#include "fuzz/executor/sched_executor.h"
#include "fuzz/input_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flowcheck::fuzz;
  static const bool strict = StrictFromEnv();
  static Program* program = new Program();  // reused across inputs
  if (!DecodeAs(Format::kSched, data, size, program)) return -1;
  SchedExecOptions options;
  options.strict = strict;
  const SchedExecResult r = ExecuteSched(*program, options);
  if (r.ok) return 0;
  std::fprintf(stderr,
               "%s  reproduce: tools/reproduce.sh --target=sched_fuzz%s <this input's crash file>\n",
               SchedFailureReport(r).c_str(), strict ? " --strict" : "");
  std::fflush(stderr);
  std::abort();
}
