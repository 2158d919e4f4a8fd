// program/scenario_testing.cc: see scenario_testing.h.
#include "program/scenario_testing.h"

#include <functional>

#include "gtest/gtest.h"

namespace flowcheck {
namespace program {

sched::RunResult RunStressDfs(const sched::ScenarioParams& given, int max_preemptions,
                              int verbosity, const std::string& schedule_out) {
  const sched::ScenarioSpec* spec = sched::FindScenario("stress");
  EXPECT_NE(spec, nullptr);
  sched::Options o;
  std::string error;
  std::function<void()> setup;
  if (spec == nullptr || !sched::ResolveParams(*spec, given, &o.params, &error) ||
      !(setup = spec->make(o.params, &error))) {
    ADD_FAILURE() << "the stress scenario's params: " << error;
    return sched::RunResult();
  }
  o.scenario = "stress";
  o.strategy = sched::StrategyKind::kDfs;
  o.max_preemptions = max_preemptions;
  o.max_executions = 0;
  o.verbosity = verbosity;
  o.out = nullptr;
  o.schedule_out = schedule_out;
  return sched::Run(o, setup);
}

StressConfig SmallDfsConfig(int program_ops) {
  StressConfig c;
  c.seed = 1;
  c.threads = 2;
  c.qps_per_thread = 1;
  c.contexts = 1;
  c.workers = 1;
  c.sched = "dfs";
  c.sched_program_ops = program_ops;
  return c;
}

std::vector<std::vector<ListedOp>> AllLists(const std::vector<ListedOp>& alphabet, int max) {
  std::vector<std::vector<ListedOp>> all{{}};
  for (size_t from = 0; from < all.size(); ++from) {
    if (static_cast<int>(all[from].size()) == max) continue;
    for (const ListedOp& op : alphabet) {
      all.push_back(all[from]);
      all.back().push_back(op);
    }
  }
  return all;
}

}  // namespace program
}  // namespace flowcheck
