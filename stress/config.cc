// stress/config.cc: see config.h.
#include "stress/config.h"

#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/sanitizers.h"

namespace flowcheck {
namespace stress {

int64_t EffectiveOpsPerThread(const StressConfig& c) {
  if (c.ops_per_thread >= 0) return c.ops_per_thread;
  return c.seconds > 0 ? 0 : 2000;
}

uint64_t RandomSeed() {
  std::random_device rd;
  uint64_t s = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return s == 0 ? 1 : s;
}

std::string Validate(const StressConfig& c) {
  // Every comparison below is false for NaN: reject non-finite values first.
  if (!std::isfinite(c.seconds)) return "--seconds must be a finite number";
  if (!std::isfinite(c.yield_probability)) return "--yield_probability must be a finite number";
  if (!std::isfinite(c.watchdog_seconds)) return "--watchdog_seconds must be a finite number";
  if (!std::isfinite(c.progress_every)) return "--progress_every must be a finite number";
  if (c.threads < 1 || c.threads > 64) return "--threads must be in 1..64";
  if (c.contexts < 1 || c.contexts > 16) return "--contexts must be in 1..16";
  if (c.qps_per_thread < 1 || c.qps_per_thread > 64) return "--qps_per_thread must be in 1..64";
  if (c.ops_per_thread < -1) return "--ops_per_thread must be >= 0 (or -1: automatic)";
  if (c.seconds < 0) return "--seconds must be >= 0";
  if (EffectiveOpsPerThread(c) == 0 && c.seconds == 0) {
    return "--ops_per_thread=0 (no limit) needs --seconds";
  }
  if (c.yield_probability < 0 || c.yield_probability > 1) {
    return "--yield_probability must be in [0, 1]";
  }
  if (c.watchdog_seconds <= 0) return "--watchdog_seconds must be > 0";
  if (c.quiescent_every < 1) return "--quiescent_every must be >= 1";
  if (c.workers < 1 || c.workers > 16) return "--workers must be in 1..16";
  if (c.bare_per_thread < 0 || c.bare_per_thread > 32) return "--bare_per_thread must be in 0..32";
  if (c.progress_every < 0) return "--progress_every must be >= 0";
  if (c.sched != "off" && c.sched != "random" && c.sched != "pct" && c.sched != "dfs") {
    return "--sched must be off, random, pct or dfs";
  }
  if (c.sched_depth < 1 || c.sched_depth > 16) return "--sched_depth must be in 1..16";
  if (c.max_preemptions < -1) return "--max_preemptions must be >= -1 (-1: unbounded)";
  if (c.sched_executions < 0) return "--sched_executions must be >= 0";
  if (c.sched_ops < 0 || c.sched_ops > 64) return "--sched_ops must be in 0..64";
  if (c.sched_programs < 1) return "--sched_programs must be >= 1";
  if (c.sched_free_flows < 1 || c.sched_free_flows > 32) {
    return "--sched_free_flows must be in 1..32";
  }
  if (c.max_steps < 0) return "--max_steps must be >= 0 (0: derived from the program's size)";
  if (Controlled(c) && c.threads + 1 + c.workers > 64) {
    return "--sched: at most 64 threads (--threads + rcv-irq + --workers)";
  }
  return "";
}

namespace {

std::string Num(double v) { return absl::StrCat(v); }

}  // namespace

std::vector<std::string> RerunFlags(const StressConfig& c) {
  const StressConfig d;
  std::vector<std::string> f;
  f.push_back(absl::StrCat("--seed=", c.seed));
  if (c.threads != d.threads) f.push_back(absl::StrCat("--threads=", c.threads));
  if (c.ops_per_thread != d.ops_per_thread) {
    f.push_back(absl::StrCat("--ops_per_thread=", c.ops_per_thread));
  }
  if (c.seconds != d.seconds) f.push_back("--seconds=" + Num(c.seconds));
  if (c.contexts != d.contexts) f.push_back(absl::StrCat("--contexts=", c.contexts));
  if (c.qps_per_thread != d.qps_per_thread) {
    f.push_back(absl::StrCat("--qps_per_thread=", c.qps_per_thread));
  }
  if (c.yield_probability != d.yield_probability) {
    f.push_back("--yield_probability=" + Num(c.yield_probability));
  }
  if (c.watchdog_seconds != d.watchdog_seconds) {
    f.push_back("--watchdog_seconds=" + Num(c.watchdog_seconds));
  }
  if (c.quiescent_every != d.quiescent_every) {
    f.push_back(absl::StrCat("--quiescent_every=", c.quiescent_every));
  }
  if (c.workers != d.workers) f.push_back(absl::StrCat("--workers=", c.workers));
  if (c.irq_thread != d.irq_thread) {
    f.push_back(absl::StrCat("--irq_thread=", c.irq_thread ? "true" : "false"));
  }
  if (c.bare_per_thread != d.bare_per_thread) {
    f.push_back(absl::StrCat("--bare_per_thread=", c.bare_per_thread));
  }
  if (c.flush_handoff != d.flush_handoff) {
    f.push_back(absl::StrCat("--flush_handoff=", c.flush_handoff ? "true" : "false"));
  }
  if (c.sched != d.sched) f.push_back("--sched=" + c.sched);
  if (c.sched_depth != d.sched_depth) f.push_back(absl::StrCat("--sched_depth=", c.sched_depth));
  if (c.max_preemptions != d.max_preemptions) {
    f.push_back(absl::StrCat("--max_preemptions=", c.max_preemptions));
  }
  if (c.sched_executions != d.sched_executions) {
    f.push_back(absl::StrCat("--sched_executions=", c.sched_executions));
  }
  if (c.sched_ops != d.sched_ops) f.push_back(absl::StrCat("--sched_ops=", c.sched_ops));
  if (c.sched_programs != d.sched_programs) {
    f.push_back(absl::StrCat("--sched_programs=", c.sched_programs));
  }
  if (c.sched_free_flows != d.sched_free_flows) {
    f.push_back(absl::StrCat("--sched_free_flows=", c.sched_free_flows));
  }
  if (c.max_steps != d.max_steps) f.push_back(absl::StrCat("--max_steps=", c.max_steps));
  return f;
}

bool BuiltWithTsan() { return std::string(flowcheck::BuildSanitizer()) == "tsan"; }

std::string RerunCommand(const StressConfig& c) {
  return absl::StrCat("bazel run ", BuiltWithTsan() ? "--config=tsan " : "",
                      "//stress:stress_main -- ", absl::StrJoin(RerunFlags(c), " "));
}

}  // namespace stress
}  // namespace flowcheck
