// fuzz/sched_program.cc: see sched_program.h.
#include "fuzz/sched_program.h"

#include <algorithm>

#include "common/strings.h"

namespace flowcheck {
namespace fuzz {

program::StressConfig SchedConfig(const Program& p, bool strict) {
  program::StressConfig c;
  c.sched = "pct";  // a controlled run (the bytes decide; see RunSched)
  c.seed = p.seed + 1;
  c.threads = p.shape.threads;
  c.contexts = 1;
  c.qps_per_thread = p.shape.qps_per_thread;
  c.workers = p.shape.workers;
  c.irq_thread = p.shape.irq;
  c.sched_free_flows = p.shape.free_flows;
  c.strict = strict;
  c.flush_handoff = !strict;
  int longest = 0;
  for (int n : p.thread_ops) longest = std::max(longest, n);
  c.sched_ops = longest;  // sizes the step bound (program::MaxSteps)
  return c;
}

program::OpLists SchedLists(const Program& p) {
  program::OpLists lists;
  size_t at = 0;
  for (int n : p.thread_ops) {
    std::vector<program::ListedOp> ops;
    for (int i = 0; i < n && at < p.ops.size(); ++i, ++at) {
      const FuzzOp& op = p.ops[at];
      ops.push_back(program::ListedOp{static_cast<program::ListedOpKind>(op.code), op.qp,
                                      static_cast<int>(op.arg)});
    }
    lists.push_back(std::move(ops));
  }
  return lists;
}

program::ControlledResult RunSched(const Program& p, bool strict, bool quiet,
                                   const std::string& schedule_out) {
  program::StressConfig c = SchedConfig(p, strict);
  c.schedule_out = schedule_out;
  return program::RunProgram(c, SchedLists(p), &p.schedule, quiet);
}

bool SchedInput(const program::StressConfig& c, const program::OpLists& lists,
                const std::vector<uint8_t>& bytes, Program* p, std::string* error) {
  const int participants = c.threads + (c.irq_thread ? 1 : 0);
  if (c.contexts != 1 || c.threads < 1 || c.threads > 4 || c.qps_per_thread < 1 ||
      c.qps_per_thread > 2 || c.workers < 1 || c.workers > 2 || c.seed < 1 ||
      c.seed > 0x10000 || static_cast<int>(lists.size()) != participants) {
    *error = "the scenario does not fit an 'S' input (one context, 1..4 threads, 1..2 QPs "
             "and workers, seed 1..65536)";
    return false;
  }
  *p = Program{};
  p->format = Format::kSched;
  p->seed = c.seed - 1;
  p->shape = SchedShape{c.threads, c.irq_thread, c.qps_per_thread, c.workers, c.sched_free_flows};
  p->num_qps = c.threads * c.qps_per_thread;
  for (const auto& list : lists) {
    for (const program::ListedOp& op : list) {
      p->ops.push_back(MakeOp(static_cast<uint8_t>(op.kind), 0, op.a, op.b));
    }
    p->thread_ops.push_back(static_cast<int>(list.size()));
  }
  p->schedule = bytes;
  const EncodeResult e = Encode(*p);
  if (!e.ok()) {
    *error = e.error;
    return false;
  }
  return true;
}

std::string SchedFailureReport(const program::ControlledResult& r) {
  std::string s = flowcheck::StrFormat("flowcheck: FAIL [%s] sched_fuzz: %s\n", r.marker.c_str(),
                                       r.detail.c_str());
  // The scheduler's report (threads, held locks, addresses) for its own
  // findings; a check's detail already says what failed, and the text stays
  // a function of the input.
  const bool scheduler_kind = r.marker.rfind("invariant ", 0) != 0 && r.marker != "oracle";
  if (scheduler_kind) s += r.report;
  if (!s.empty() && s.back() != '\n') s += '\n';
  s += "flowcheck: trace hash " + r.trace_hash + "\n";
  return s;
}

}  // namespace fuzz
}  // namespace flowcheck
