// sched/cli.h: named scenarios and the command line that runs or replays
// them. A binary registers scenarios (RegisterScenario, usually from a
// static initializer) and calls sched::Main from main(). A schedule file
// names its scenario and parameters, so the same binary replays it:
//
//   bazel run //sched:sched_examples -- --scenario=bitmap_alloc --strategy=pct
//   bazel run //sched:sched_examples -- --replay=/abs/path/x.schedule
//
// Flags: --list; --scenario=NAME; --param=KEY=VALUE (repeatable);
// --strategy=random|pct|dfs (random); --seed=N (1); --depth=D (pct, 3);
// --max_preemptions=N (dfs, 2; -1 unbounded); --executions=N (1000; dfs 0 =
// until exhausted); --max_steps=N (10000); --lockcheck_reports=end|defer|record;
// --backend=fiber|baton; --schedule_out=PATH; --replay=FILE; --quiet (no
// per-execution trace hash lines); --trace_out=FILE.json (the trace of the
// failing or last execution, trace_out.h, for tools/timeline.py);
// --minimize (with --replay=FILE: write FILE's minimized schedule beside it,
// minimize.h).
// Exit status: 0 no failure; 1 a failure was found or reproduced (or the
// replay diverged; with --minimize: the minimized schedule was written and
// reproduces); 2 usage error or unusable schedule file (with --minimize:
// also an input that does not reproduce its failure); 3 the failing
// schedule, the trace or the minimized schedule could not be written.
#ifndef FLOWCHECK_SCHED_CLI_H_
#define FLOWCHECK_SCHED_CLI_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace sched {

using ScenarioParams = std::map<std::string, std::string>;

struct ScenarioSpec {
  std::string name;
  std::string help;         // one line
  ScenarioParams defaults;  // every parameter it takes, with its default
  // The setup function (sched.h) for `params` (defaults filled in, no
  // unknown keys); on bad values, sets *error and returns nullptr.
  std::function<std::function<void()>(const ScenarioParams& params, std::string* error)> make;
};

// Adds a scenario; returns true (for static initializers). Names are unique.
bool RegisterScenario(ScenarioSpec spec);
const ScenarioSpec* FindScenario(const std::string& name);
// Makes ResolveParams accept, for scenario `name`, keys starting with
// `prefix` that have no default (e.g. "ops." for per-thread op lists whose
// keys depend on other params). Returns true (for static initializers).
bool AcceptParamPrefix(const std::string& name, const std::string& prefix);
std::vector<const ScenarioSpec*> AllScenarios();

// `given` over the scenario's defaults; an unknown key is an error.
bool ResolveParams(const ScenarioSpec& spec, const ScenarioParams& given, ScenarioParams* out,
                   std::string* error);

// The command line above. `target` is the Bazel target of the binary, written
// into schedule files.
int Main(int argc, char** argv, const char* target);

}  // namespace sched

#endif  // FLOWCHECK_SCHED_CLI_H_
