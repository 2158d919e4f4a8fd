// fuzz/sched_fuzz_reproduce.cc: see sched_fuzz_reproduce.h.
#include "fuzz/sched_fuzz_reproduce.h"

#include <cstdio>
#include <string>

#include "fuzz/sched_program.h"

namespace flowcheck {
namespace fuzz {

int ReproduceSched(const Program& p, bool strict, const std::string& schedule_out) {
  const program::StressConfig c = SchedConfig(p, strict);
  const program::OpLists lists = SchedLists(p);
  std::printf("ops per participant (stress-i owns QP slots 0..%d; all share one context):\n",
              c.qps_per_thread - 1);
  for (size_t i = 0; i < lists.size(); ++i) {
    const bool irq = c.irq_thread && static_cast<int>(i) == c.threads;
    std::printf("  %s: %s\n", irq ? "rcv-irq" : ("stress-" + std::to_string(i)).c_str(),
                lists[i].empty() ? "(none)" : program::FormatOps(lists[i]).c_str());
  }
  std::printf("interleaving: %zu scheduling byte(s), past them no preemption%s\n",
              p.schedule.size(),
              strict ? "; strict: no wakeup hand-off after a flush, divergences fail" : "");
  std::fflush(stdout);
  const program::ControlledResult r = RunSched(p, strict, /*quiet=*/true, schedule_out);
  for (const auto& [id, example] : r.stats.divergences) {
    std::printf("note: upstream divergence %s (a known kernel hazard, not a failure): %s\n",
                id.c_str(), example.c_str());
  }
  if (r.oracle_executions > 0 && !r.oracle_first_stop.empty()) {
    std::printf("note: the oracle compared %llu time(s), then left the execution: %s\n",
                static_cast<unsigned long long>(r.oracle_comparisons),
                r.oracle_first_stop.c_str());
  }
  if (r.status == 0) {
    std::printf("flowcheck: trace hash %s\n", r.trace_hash.c_str());
    std::printf(
        "\nresult: the input PASSES: %llu scheduler decisions, %llu oracle comparison(s), "
        "every check held (exit 0)\n",
        static_cast<unsigned long long>(r.decisions),
        static_cast<unsigned long long>(r.oracle_comparisons));
    return 0;
  }
  if (r.status == 3) {
    std::fprintf(stderr, "reproduce: the schedule file could not be written: %s\n",
                 r.schedule_path.c_str());
    return 3;
  }
  if (!r.schedule_path.empty()) {
    std::printf("flowcheck: schedule written: %s\n", r.schedule_path.c_str());
  }
  std::printf("\n%s", SchedFailureReport(r).c_str());
  std::printf("\nresult: REPRODUCED after %llu scheduler decisions (exit 1)\n",
              static_cast<unsigned long long>(r.decisions));
  return 1;
}

}  // namespace fuzz
}  // namespace flowcheck
