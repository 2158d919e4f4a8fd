// sched/cli.cc: see cli.h.
#include "sched/cli.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "common/atomic_file.h"
#include "common/strings.h"
#include "sched/minimize.h"
#include "sched/run.h"
#include "sched/schedule_file.h"

namespace sched {
namespace {

// Filled by static initializers before main, read after: no locking.
std::vector<std::unique_ptr<ScenarioSpec>>& Registry() {
  static auto* registry = new std::vector<std::unique_ptr<ScenarioSpec>>();
  return *registry;
}

// AcceptParamPrefix's (scenario, prefix) pairs; filled like Registry().
std::vector<std::pair<std::string, std::string>>& Prefixes() {
  static auto* prefixes = new std::vector<std::pair<std::string, std::string>>();
  return *prefixes;
}

// The whole of `s` as a number of T's range, at least `min`.
template <typename T>
bool ParseAtLeast(const std::string& s, T min, T* out) {
  return flowcheck::SimpleAtoi(s, out) && *out >= min;
}

int Usage(const std::string& why) {
  std::fprintf(stderr, "flowcheck: sched: %s (see sched/cli.h; --list names the scenarios)\n",
               why.c_str());
  return 2;
}

}  // namespace

bool RegisterScenario(ScenarioSpec spec) {
  if (FindScenario(spec.name) != nullptr) {
    std::fprintf(stderr, "flowcheck: sched: scenario '%s' registered twice\n", spec.name.c_str());
    std::abort();
  }
  Registry().push_back(std::make_unique<ScenarioSpec>(std::move(spec)));
  return true;
}

bool AcceptParamPrefix(const std::string& name, const std::string& prefix) {
  Prefixes().emplace_back(name, prefix);
  return true;
}

const ScenarioSpec* FindScenario(const std::string& name) {
  for (const auto& s : Registry()) {
    if (s->name == name) return s.get();
  }
  return nullptr;
}

std::vector<const ScenarioSpec*> AllScenarios() {
  std::vector<const ScenarioSpec*> all;
  for (const auto& s : Registry()) all.push_back(s.get());
  return all;
}

bool ResolveParams(const ScenarioSpec& spec, const ScenarioParams& given, ScenarioParams* out,
                   std::string* error) {
  *out = spec.defaults;
  for (const auto& [k, v] : given) {
    bool prefixed = false;
    for (const auto& [name, prefix] : Prefixes()) {
      prefixed |= name == spec.name && k.size() > prefix.size() &&
                  k.compare(0, prefix.size(), prefix) == 0;
    }
    if (spec.defaults.count(k) == 0 && !prefixed) {
      *error = "scenario '" + spec.name + "' has no parameter '" + k + "'";
      return false;
    }
    (*out)[k] = v;
  }
  return true;
}

int Main(int argc, char** argv, const char* target) {
  Options o;
  o.target = target;
  o.max_executions = 1000;
  bool executions_given = false;
  bool minimize = false;
  std::string scenario, replay;
  ScenarioParams given;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    const std::string flag = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (arg == "--list") {
      for (const ScenarioSpec* s : AllScenarios()) {
        std::string params;
        for (const auto& [k, v] : s->defaults) params += " " + k + "=" + v;
        std::printf("%-20s %s\n%20s  params:%s\n", s->name.c_str(), s->help.c_str(), "",
                    params.empty() ? " none" : params.c_str());
      }
      return 0;
    } else if (arg == "--quiet") {
      o.verbosity = 0;
    } else if (flag == "--scenario") {
      scenario = value;
    } else if (flag == "--param") {
      const size_t peq = value.find('=');
      if (peq == std::string::npos || peq == 0) return Usage("expected --param=KEY=VALUE");
      given[value.substr(0, peq)] = value.substr(peq + 1);
    } else if (flag == "--strategy") {
      if (!Parse(value, &o.strategy) || o.strategy == StrategyKind::kReplay ||
          o.strategy == StrategyKind::kGuided || o.strategy == StrategyKind::kBytes) {
        return Usage("unknown strategy '" + value + "' (random, pct or dfs; --replay=FILE replays)");
      }
    } else if (flag == "--seed" && flowcheck::SimpleAtoi(value, &o.seed)) {
    } else if (flag == "--depth" && ParseAtLeast(value, 1, &o.pct_depth)) {
    } else if (flag == "--max_preemptions" && ParseAtLeast(value, -1, &o.max_preemptions)) {
    } else if (flag == "--executions" && flowcheck::SimpleAtoi(value, &o.max_executions)) {
      executions_given = true;
    } else if (flag == "--max_steps" && ParseAtLeast<uint64_t>(value, 1, &o.max_steps)) {
    } else if (flag == "--lockcheck_reports" && Parse(value, &o.lockcheck_reports)) {
    } else if (flag == "--backend") {
      if (!Parse(value, &o.backend)) return Usage("unknown backend '" + value + "' (fiber or baton)");
    } else if (flag == "--schedule_out") {
      o.schedule_out = value;
    } else if (flag == "--replay") {
      replay = value;
    } else if (arg == "--minimize") {
      minimize = true;
    } else if (flag == "--trace_out" && !value.empty()) {
      o.trace_out = value;
    } else {
      return Usage("bad argument '" + arg + "'");
    }
  }
  if (o.strategy == StrategyKind::kDfs && !executions_given) o.max_executions = 0;
  if (!replay.empty()) {
    o.replay_path = flowcheck::ResolveUserPath(replay);
    std::string error;
    if (!LoadScheduleFile(o.replay_path, &o.replay, &error)) return Usage(error);
    scenario = o.replay.scenario;
    given = o.replay.params;
    o.strategy = StrategyKind::kReplay;
    o.seed = o.replay.seed;
    if (!o.replay.backend.empty()) Parse(o.replay.backend, &o.backend);  // checked on load
  }
  if (minimize && replay.empty()) return Usage("--minimize needs --replay=FILE (the failing schedule)");
  if (scenario.empty()) return Usage("--scenario=NAME or --replay=FILE is required");
  const ScenarioSpec* spec = FindScenario(scenario);
  if (spec == nullptr) return Usage("no scenario '" + scenario + "' in this binary");
  std::string error;
  if (!ResolveParams(*spec, given, &o.params, &error)) return Usage(error);
  std::function<void()> setup = spec->make(o.params, &error);
  if (!setup) return Usage(error);
  o.scenario = spec->name;
  if (minimize) return MinimizeSchedule(*spec, o.replay_path, o.replay, o, stderr);
  const RunResult r = Run(o, setup);
  if (r.usage_error) return 2;
  if (r.failed && !r.schedule_error.empty()) return 3;
  if (!r.trace_error.empty()) return 3;
  return r.failed ? 1 : 0;
}

}  // namespace sched
