// sched/minimize.cc: see minimize.h.
#include "sched/minimize.h"

#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/atomic_file.h"

namespace sched {
namespace {

// Bounds the search on a huge input (each candidate is one execution).
constexpr int kMaxCandidateRuns = 4000;
// Executions of one bounded dfs. After an op is deleted (Try): most such
// candidates lose the failure and run the whole budget, so it sets
// --minimize's time; 50 found the same results as 200 on the flush hazard's
// schedules (pct seed 89: ops 20 -> 15, 3 570 executions instead of 10 470;
// seed 1: 20 -> 10, 2 755 instead of 7 255) and on docs/sched.md's example
// (15 -> 2). The search for fewer preemptions (SearchFewerPreemptions) runs
// a few times per minimization and needs the larger budget to find them
// (minimize_test's 4-thread bitmap_alloc: 12 -> 1 with 200, 2 with 50).
constexpr uint64_t kOpSearchExecutions = 50;
constexpr uint64_t kPreemptionSearchExecutions = 200;
// A hexadecimal number this long is an address (heap and stack addresses
// print with 12 digits); shorter ones (a flow_mask 0x3) are values.
constexpr size_t kAddressDigits = 8;

std::vector<std::string> Split(const std::string& list) {
  std::vector<std::string> out;
  if (list.empty()) return out;
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    out.push_back(list.substr(start, comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::string Join(const std::vector<std::string>& items) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i > 0 ? "," : "") + items[i];
  return s;
}

bool IsOpsKey(const std::string& key) { return key.rfind("ops.", 0) == 0 && key.size() > 4; }

// One run's result: what the minimizer keeps and compares.
struct Kept {
  ScenarioParams params;
  std::vector<ScheduledDecision> decisions;  // as the run really went
  uint64_t trace_hash = 0;
  std::string line;
  std::tuple<int, int, size_t> Cost() const {
    return {CountOps(params), CountPreemptions(decisions), decisions.size()};
  }
};

class Minimizer {
 public:
  Minimizer(const ScenarioSpec& spec, const Schedule& input, FILE* out)
      : spec_(spec), input_(input), out_(out) {}

  // Runs `params` steered by `guide`; true (and *kept filled) when it fails
  // with the marker.
  //
  // search >= 0: if the guided run does not show the marker, a bounded dfs
  // (at most `search` preemptions, kOpSearchExecutions executions) looks for
  // an execution that does: a deleted op shifts every later decision, which
  // a guide by step number cannot follow.
  bool Try(const ScenarioParams& params, const std::vector<ScheduledDecision>& guide, Kept* kept,
           int search = -1) {
    std::string error;
    std::function<void()> setup = spec_.make(params, &error);
    if (!setup) return false;  // e.g. the scenario needs a non-empty list
    if (RunOnce(params, setup, StrategyKind::kGuided, guide, 0, 1, kept)) return true;
    return search >= 0 &&
           RunOnce(params, setup, StrategyKind::kDfs, {}, search, kOpSearchExecutions, kept);
  }

  bool RunOnce(const ScenarioParams& params, const std::function<void()>& setup,
               StrategyKind strategy, const std::vector<ScheduledDecision>& guide,
               int max_preemptions, uint64_t max_executions, Kept* kept) {
    if (runs_ >= kMaxCandidateRuns) return false;
    ++runs_;
    Options o;
    o.scenario = spec_.name;
    o.params = params;
    o.strategy = strategy;
    o.replay.decisions = guide;
    o.max_preemptions = max_preemptions;
    o.max_executions = max_executions;
    o.max_steps = input_.max_steps;
    Parse(input_.lockcheck_reports, &o.lockcheck_reports);  // checked on load
    if (!input_.backend.empty()) Parse(input_.backend, &o.backend);
    o.write_schedule = false;
    o.wanted_failure = [this](const std::string& kind, const std::string& line) {
      return FailureMarker(kind, line) == marker_;
    };
    o.verbosity = 0;
    o.out = nullptr;
    const RunResult r = sched::Run(o, setup);
    executions_ += r.executions;
    if (!r.failed || r.usage_error || r.failure_kind != input_.failure ||
        FailureMarker(r.failure_kind, r.failure_line) != marker_) {
      return false;
    }
    kept->params = params;
    kept->decisions = r.decisions;
    kept->trace_hash = r.last_trace_hash;
    kept->line = r.failure_line;
    return true;
  }

  // Keeps `c` if it is strictly smaller than the best so far.
  bool Offer(const Kept& c) {
    if (!(c.Cost() < best_.Cost())) return false;
    best_ = c;
    ++kept_;
    return true;
  }

  bool ShrinkOps() {
    bool any = false;
    std::vector<std::string> keys;
    for (const auto& kv : best_.params) {
      if (IsOpsKey(kv.first)) keys.push_back(kv.first);
    }
    for (const std::string& k : keys) {  // best_ (and its map) change below
      std::vector<std::string> items = Split(best_.params.at(k));
      // ddmin (complements only): remove one of n chunks; n grows to one
      // element per chunk when no chunk can go.
      size_t n = 2;
      while (!items.empty()) {
        const size_t chunk = (items.size() + n - 1) / n;
        bool reduced = false;
        for (size_t start = 0; start < items.size() && !reduced; start += chunk) {
          std::vector<std::string> rest(items.begin(), items.begin() + start);
          rest.insert(rest.end(), items.begin() + std::min(items.size(), start + chunk),
                      items.end());
          ScenarioParams p = best_.params;
          p[k] = Join(rest);
          Kept c;
          if (Try(p, best_.decisions, &c, CountPreemptions(best_.decisions)) && Offer(c)) {
            items = std::move(rest);
            reduced = any = true;
          }
        }
        if (reduced) {
          n = std::max<size_t>(n - 1, 2);
        } else if (chunk == 1) {
          break;  // 1-minimal: no single element can go
        } else {
          n = std::min(items.size(), n * 2);
        }
      }
    }
    return any;
  }

  // The shortest prefix of the decisions that still fails (binary search;
  // the rest of the run goes on without preemption).
  bool Truncate() {
    const std::vector<ScheduledDecision> d = best_.decisions;
    size_t lo = 0, hi = d.size();
    Kept found;
    bool have = false;
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      Kept c;
      if (Try(best_.params, {d.begin(), d.begin() + mid}, &c)) {
        hi = mid;
        found = std::move(c);
        have = true;
      } else {
        lo = mid + 1;
      }
    }
    return have && Offer(found);
  }

  // Iterative deepening: a bounded dfs with fewer preemptions than the best.
  bool SearchFewerPreemptions() {
    std::string error;
    std::function<void()> setup = spec_.make(best_.params, &error);
    for (int p = 0; setup && p < CountPreemptions(best_.decisions); ++p) {
      Kept c;
      if (RunOnce(best_.params, setup, StrategyKind::kDfs, {}, p, kPreemptionSearchExecutions, &c) &&
          Offer(c)) {
        return true;
      }
    }
    return false;
  }

  bool DropPreemptions() {
    bool any = false;
    for (bool again = true; again;) {
      again = false;
      const std::vector<ScheduledDecision> d = best_.decisions;
      for (size_t i = d.size(); i-- > 1;) {
        const int prev = d[i - 1].thread;
        if (!(d[i].runnable >> prev & 1) || d[i].thread == prev) continue;
        std::vector<ScheduledDecision> guide = d;
        guide[i].thread = prev;
        Kept c;
        if (Try(best_.params, guide, &c) && Offer(c)) {
          any = again = true;
          break;  // the decisions changed: recount from the end
        }
      }
    }
    return any;
  }

  int Minimize(const std::string& input_path, const Options& base) {
    auto print = [this](const std::string& line) {
      if (out_ != nullptr) std::fprintf(out_, "%s\n", line.c_str());
    };
    // The input, replayed strictly, defines the marker.
    std::string error;
    std::function<void()> setup = spec_.make(input_.params, &error);
    if (!setup) {
      print("flowcheck: minimize: " + input_path + ": " + error);
      return 2;
    }
    Options o;
    o.scenario = spec_.name;
    o.params = input_.params;
    o.strategy = StrategyKind::kReplay;
    o.replay = input_;
    o.replay_path = input_path;
    if (!input_.backend.empty()) Parse(input_.backend, &o.backend);
    o.out = nullptr;
    const RunResult first = sched::Run(o, setup);
    if (!first.failed || first.usage_error || first.failure_kind == "nondeterminism") {
      print("flowcheck: minimize: " + input_path +
            " does not reproduce its failure, nothing to minimize: " +
            (first.failed ? "[" + first.failure_kind + "] " + first.failure_line
                          : std::string("the replay passed")));
      return 2;
    }
    marker_ = FailureMarker(first.failure_kind, first.failure_line);
    best_.params = input_.params;
    best_.decisions = first.decisions;
    best_.trace_hash = first.last_trace_hash;
    best_.line = first.failure_line;
    const Kept before = best_;

    for (int round = 0; round < 8; ++round) {
      bool changed = ShrinkOps();
      changed |= Truncate();
      changed |= DropPreemptions();
      changed |= SearchFewerPreemptions();
      if (!changed) break;
    }
    auto counts = [](const Kept& k) {
      return "ops " + std::to_string(CountOps(k.params)) + ", decisions " +
             std::to_string(k.decisions.size()) + ", preemptions " +
             std::to_string(CountPreemptions(k.decisions));
    };
    print("flowcheck: minimize: before: " + counts(before));
    print("flowcheck: minimize: after:  " + counts(best_) + " (" + std::to_string(runs_) +
          " candidate runs, " + std::to_string(executions_) + " executions, " +
          std::to_string(kept_) + " kept" +
          (runs_ >= kMaxCandidateRuns ? ", stopped at the run limit" : "") + ")");

    Schedule s = input_;
    s.params = best_.params;
    s.target = input_.target.empty() ? base.target : input_.target;
    s.strategy = "minimize";
    s.strategy_params = {{"from", input_.strategy.empty() ? "unknown" : input_.strategy}};
    s.trace_hash = best_.trace_hash;
    s.decisions = best_.decisions;
    // The strict replay the written file must pass, before it is written.
    std::function<void()> final_setup = spec_.make(s.params, &error);
    Options v = o;
    v.params = s.params;
    v.replay = s;
    v.trace_out = base.trace_out;
    const std::string path = MinimizedPath(input_path);
    v.replay_path = path;
    const RunResult check = sched::Run(v, final_setup);
    if (!check.failed || check.failure_kind != s.failure) {
      print("flowcheck: minimize: the minimized schedule did not replay strictly (" +
            (check.failed ? "[" + check.failure_kind + "] " + check.failure_line
                          : std::string("it passed")) +
            "): the scenario is not a function of its schedule; nothing written");
      return 2;
    }
    char in_real[PATH_MAX];
    if (realpath(input_path.c_str(), in_real) != nullptr && path == in_real) {
      print("flowcheck: minimize: refusing to overwrite the input " + path);
      return 3;
    }
    const std::string werr = WriteScheduleFile(path, s);
    if (!werr.empty()) {
      print("flowcheck: minimize: " + werr);
      return 3;
    }
    print("flowcheck: schedule written: " + path);
    print("flowcheck: rerun: tools/reproduce.sh " + path);
    print("flowcheck: FAIL [" + check.failure_kind + "] " + check.failure_line);
    print(check.report);
    print("flowcheck: trace hash " + TraceHashHex(check.last_trace_hash));
    if (!check.trace_path.empty()) print("flowcheck: trace written: " + check.trace_path);
    if (!check.trace_error.empty()) {
      print("flowcheck: sched: " + check.trace_error);
      return 3;
    }
    print("flowcheck: minimize: the minimized schedule replays strictly: reproduced [" +
          check.failure_kind + "], trace hash " + TraceHashHex(check.last_trace_hash));
    return 1;
  }

 private:
  const ScenarioSpec& spec_;
  const Schedule& input_;
  FILE* out_;
  std::string marker_;
  Kept best_;
  int runs_ = 0, kept_ = 0;
  uint64_t executions_ = 0;
};

}  // namespace

std::string FailureMarker(const std::string& kind, const std::string& line) {
  std::string m = "[" + kind + "] ";
  const std::string thread = "thread ";
  for (size_t i = 0; i < line.size();) {
    if (line.compare(i, 2, "0x") == 0) {
      size_t j = i + 2;
      while (j < line.size() && std::isxdigit(static_cast<unsigned char>(line[j]))) ++j;
      if (j - (i + 2) >= kAddressDigits) {  // an address; a short value stays
        m += "0x?";
        i = j;
        continue;
      }
    }
    if (line.compare(i, thread.size(), thread) == 0) {
      size_t j = i + thread.size();
      while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
      if (j > i + thread.size() && line.compare(j, 2, " \"") == 0) {
        m += "thread ?";
        i = j;
        continue;
      }
    }
    m += line[i++];
  }
  return m;
}

int CountPreemptions(const std::vector<ScheduledDecision>& decisions) {
  int n = 0;
  for (size_t i = 1; i < decisions.size(); ++i) {
    const int prev = decisions[i - 1].thread;
    if ((decisions[i].runnable >> prev & 1) && decisions[i].thread != prev) ++n;
  }
  return n;
}

int CountOps(const ScenarioParams& params) {
  int n = 0;
  for (const auto& [k, v] : params) {
    if (IsOpsKey(k)) n += static_cast<int>(Split(v).size());
  }
  return n;
}

std::string MinimizedPath(const std::string& input_path) {
  char real[PATH_MAX];
  std::string p = realpath(input_path.c_str(), real) != nullptr ? real : input_path;
  const std::string suffix = ".schedule";
  if (p.size() > suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0) {
    p.resize(p.size() - suffix.size());
  }
  return p + ".min.schedule";
}

int MinimizeSchedule(const ScenarioSpec& spec, const std::string& input_path,
                     const Schedule& input, const Options& base, FILE* out) {
  return Minimizer(spec, input, out).Minimize(input_path, base);
}

}  // namespace sched
