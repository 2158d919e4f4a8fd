// fuzz/sched_fuzz.cc: the concurrent libFuzzer target. An input ('S'
// format, docs/fuzz-format.md) is a concurrent program of the engine (the
// op threads' and rcv-irq's op lists, program/op_table.h) and its
// scheduling bytes; one controlled execution runs it as the bytes say, with
// the engine's checks and oracle (fuzz/sched_program.h), so a crash file is
// the whole reproduction: tools/reproduce.sh --target=sched_fuzz FILE
// (--minimize, --timeline: through the stress schedule file it writes).
// FLOWCHECK_FUZZ_STRICT=1 makes the kernel's known hazards failures.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz/executor/fuzz_one_input.h"
#include "fuzz/input_format.h"
#include "fuzz/sched_program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flowcheck::fuzz;
  static const bool strict = StrictFromEnv();
  static Program* program = new Program();  // reused across inputs
  if (!DecodeAs(Format::kSched, data, size, program)) return -1;
  const flowcheck::program::ControlledResult r = RunSched(*program, strict, /*quiet=*/true);
  if (r.status == 0) return 0;
  std::fprintf(stderr,
               "%s  reproduce: tools/reproduce.sh --target=sched_fuzz%s <this input's crash file>\n",
               SchedFailureReport(r).c_str(), strict ? " --strict" : "");
  std::fflush(stderr);
  std::abort();
}
