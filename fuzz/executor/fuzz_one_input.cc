// fuzz/executor/fuzz_one_input.cc: see fuzz_one_input.h.
#include "fuzz/executor/fuzz_one_input.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/executor.h"

namespace flowcheck {
namespace fuzz {

bool StrictFromEnv() {
  const char* v = std::getenv("FLOWCHECK_FUZZ_STRICT");
  return v != nullptr && v[0] == '1';
}

int FuzzOneInput(Format format, const uint8_t* data, size_t size) {
  static const bool strict = StrictFromEnv();
  static Program* program = new Program();  // reused: no allocation once warm
  if (!DecodeAs(format, data, size, program)) return -1;
  ExecOptions options;
  options.strict = strict;
  ExecResult r = Execute(*program, options);
  if (r.ok) return 0;
  std::string report = FailureReport(*program, r.failure);
  std::fprintf(stderr, "%s  reproduce: tools/reproduce.sh%s <this input's crash file>\n",
               report.c_str(), strict ? " --strict" : "");
  std::fflush(stderr);
  std::abort();
}

}  // namespace fuzz
}  // namespace flowcheck
