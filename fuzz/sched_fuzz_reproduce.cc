// fuzz/sched_fuzz_reproduce.cc: see sched_fuzz_reproduce.h.
#include "fuzz/sched_fuzz_reproduce.h"

#include <cstdio>
#include <string>

#include "fuzz/executor/sched_executor.h"
#include "sched/run.h"

namespace flowcheck {
namespace fuzz {

int ReproduceSched(const Program& p, bool strict, const std::string& schedule_out) {
  std::printf("ops per thread (thread ti owns qp#2i and qp#2i+1; all share one context):\n");
  size_t first = 0;
  for (size_t t = 0; t < p.thread_ops.size(); ++t) {
    std::printf("  thread t%zu (qp#%zu, qp#%zu), %d op(s):\n", t, 2 * t, 2 * t + 1,
                p.thread_ops[t]);
    for (int i = 0; i < p.thread_ops[t]; ++i) {
      std::printf("    #%-3zu %s\n", first + i, DescribeOp(p.format, p.ops[first + i]).c_str());
    }
    first += p.thread_ops[t];
  }
  std::printf("interleaving (%zu scheduling byte(s); past them no preemption):\n",
              p.schedule.size());
  std::fflush(stdout);
  SchedExecOptions options;
  options.strict = strict;
  options.trace = true;
  options.schedule_out = schedule_out;
  const SchedExecResult r = ExecuteSched(p, options);
  for (const std::string& e : r.events) std::printf("  %s\n", e.c_str());
  if (!r.oracle_off.empty()) {
    std::printf("note: the oracle stopped comparing %s; the invariants went on\n",
                r.oracle_off.c_str());
  }
  for (const std::string& h : r.hazards) std::printf("note: %s\n", h.c_str());
  if (!r.ok) {
    if (!r.schedule_path.empty()) {
      std::printf("flowcheck: schedule written: %s\n", r.schedule_path.c_str());
    } else if (!schedule_out.empty()) {
      std::fprintf(stderr, "reproduce: the schedule file could not be written: %s\n",
                   r.schedule_error.c_str());
      return 3;
    }
    std::printf("\n%s", SchedFailureReport(r).c_str());
    std::printf("\nresult: REPRODUCED at step %zu (%llu scheduler decisions) (exit 1)\n",
                r.fail_step, static_cast<unsigned long long>(r.decisions));
    return 1;
  }
  std::printf("flowcheck: trace hash %s\n", sched::TraceHashHex(r.trace_hash).c_str());
  std::printf(
      "\nresult: the input PASSES: %zu step(s), %llu scheduler decisions, %zu oracle "
      "comparison(s), every invariant held (exit 0)\n",
      r.steps, static_cast<unsigned long long>(r.decisions), r.oracle_checks);
  return 0;
}

}  // namespace fuzz
}  // namespace flowcheck
