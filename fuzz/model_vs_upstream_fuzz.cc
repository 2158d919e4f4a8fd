// fuzz/model_vs_upstream_fuzz.cc: the differential target. One
// process, two instances of the flow layer: the kernel's own tid_rdma.c text
// (//core:core in --config=upstream) and core's model (the same core sources
// compiled a second time under the prefix diffmodel_, upstream/diff/), each on
// its own device, context and QPs. Every input is a flow_fuzz program
// (format 'F', docs/fuzz-format.md): the executor legalises each op into
// calls on the pooled Lockstep (kernel + oracle, every check flow_fuzz makes)
// and the Lockstep makes each call on core's model as well (its mirror); after
// every op the two worlds' states are compared field by field (state_diff.h)
// and any difference fails the step, named "differential: <field>: kernel X,
// core Y" under the op's index. FLOWCHECK_FUZZ_STRICT=1 as for flow_fuzz.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/oracle/lockstep.h"
#include "fuzz/executor.h"
#include "fuzz/executor/fuzz_one_input.h"
#include "fuzz/executor/lockstep_pool.h"
#include "fuzz/input_format.h"
#include "upstream/diff/model_mirror.h"

namespace {

using flowcheck::fuzz::Program;

// The pooled Lockstep of p's QP count gets its mirror the first time that
// count is seen; Execute's PooledLockstep then resets both for every program.
void AttachMirror(const Program& p) {
  static flowcheck::oracle::Lockstep::Mirror* mirrors[flowcheck::fuzz::kMaxFlowQps + 1] = {};
  if (mirrors[p.num_qps] != nullptr) return;
  flowcheck::oracle::Lockstep& ls = flowcheck::fuzz::PooledLockstep(p.num_qps, p.seed);
  // Never destroyed, as the pooled Lockstep it mirrors.
  mirrors[p.num_qps] = flowcheck::diff::MakeCoreModelMirror(p.num_qps, p.seed).release();
  ls.set_mirror(mirrors[p.num_qps]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flowcheck::fuzz;
  static const bool strict = StrictFromEnv();
  static Program* program = new Program();  // reused: no allocation once warm
  if (!DecodeAs(Format::kFlow, data, size, program)) return -1;
  AttachMirror(*program);
  ExecOptions options;
  options.strict = strict;
  ExecResult r = Execute(*program, options);
  if (r.ok) return 0;
  std::string report = FailureReport(*program, r.failure);
  std::fprintf(stderr,
               "%s  (model = the kernel's text; differential lines: the kernel's world vs "
               "core's model)\n  reproduce: bazel run --config=upstream "
               "//fuzz:model_vs_upstream_fuzz -- $PWD/<this input's crash file>\n",
               report.c_str());
  std::fflush(stderr);
  std::abort();
}
