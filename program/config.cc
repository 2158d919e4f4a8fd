// program/config.cc: see config.h.
#include "program/config.h"

#include <cctype>
#include <cmath>
#include <random>

#include "common/sanitizers.h"
#include "common/strings.h"

namespace flowcheck {
namespace program {

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
  if (c.qps_per_thread < 1 || c.qps_per_thread > kMaxQpsPerThread) return "--qps_per_thread must be in 1..64";
  static_assert(kMaxQpsPerThread == 64, "the message above names the bound");
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
  if (c.sched_segment_percent < 0 || c.sched_segment_percent > 100) {
    return "--sched_segment_percent must be in 0..100";
  }
  if (c.sched_program_ops < 0 || c.sched_program_ops > 6) {
    return "--sched_program_ops must be in 0..6";
  }
  if (c.sched_program_ops > 0 && (c.sched != "dfs" || c.sched_programs != 1)) {
    return "--sched_program_ops needs --sched=dfs and no --sched_programs (it sets the programs)";
  }
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

// A field's value as a flag's text (RerunFlags) and as a param (ConfigParams).
std::string FlagText(bool v) { return v ? "true" : "false"; }
std::string FlagText(const std::string& v) { return v; }
template <typename T>
std::string FlagText(T v) {
  return flowcheck::StrCat(v);
}

std::string ParamText(bool v) { return v ? "1" : "0"; }
template <typename T>
std::string ParamText(T v) {
  return flowcheck::StrCat(v);
}

}  // namespace

bool ParseFieldValue(const std::string& text, bool* v) {
  std::string t;
  for (char ch : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (t == "true" || t == "t" || t == "yes" || t == "y" || t == "1") return *v = true, true;
  if (t == "false" || t == "f" || t == "no" || t == "n" || t == "0") return *v = false, true;
  return false;
}
bool ParseFieldValue(const std::string& text, double* v) { return SimpleAtod(text, v); }
bool ParseFieldValue(const std::string& text, std::string* v) { return *v = text, true; }
bool ParseFieldValue(const std::string& text, int* v) { return SimpleAtoi(text, v); }
bool ParseFieldValue(const std::string& text, int64_t* v) { return SimpleAtoi(text, v); }
bool ParseFieldValue(const std::string& text, uint64_t* v) { return SimpleAtoi(text, v); }

std::vector<std::string> RerunFlags(const StressConfig& c) {
  const StressConfig d;
  std::vector<std::string> f;
  f.push_back(flowcheck::StrCat("--seed=", c.seed));
#define FLOWCHECK_STRESS_RERUN_FLAG(type, name, def, uses, help) \
  if (((uses) & kRerun) && c.name != d.name) f.push_back("--" #name "=" + FlagText(c.name));
  FLOWCHECK_STRESS_CONFIG_FIELDS(FLOWCHECK_STRESS_RERUN_FLAG)
#undef FLOWCHECK_STRESS_RERUN_FLAG
  return f;
}

std::map<std::string, std::string> ConfigParams(const StressConfig& c) {
  std::map<std::string, std::string> p;
#define FLOWCHECK_STRESS_PARAM(type, name, def, uses, help) \
  if ((uses) & kParam) p[#name] = ParamText(c.name);
  FLOWCHECK_STRESS_CONFIG_FIELDS(FLOWCHECK_STRESS_PARAM)
#undef FLOWCHECK_STRESS_PARAM
  return p;
}

bool ConfigFromParams(const std::map<std::string, std::string>& params, StressConfig* c,
                      std::string* error) {
#define FLOWCHECK_STRESS_READ_PARAM(type, name, def, uses, help)                   \
  if ((uses) & kParam) {                                                          \
    auto it = params.find(#name);                                                 \
    if (it == params.end() || !ParseFieldValue(it->second, &c->name)) {                \
      *error = "param " #name ": missing or not a number";                       \
      return false;                                                               \
    }                                                                             \
  }
  FLOWCHECK_STRESS_CONFIG_FIELDS(FLOWCHECK_STRESS_READ_PARAM)
#undef FLOWCHECK_STRESS_READ_PARAM
  return true;
}

bool BuiltWithTsan() { return std::string(flowcheck::BuildSanitizer()) == "tsan"; }

std::string RerunCommand(const StressConfig& c) {
  return flowcheck::StrCat("bazel run ", BuiltWithTsan() ? "--config=tsan " : "",
                           "//stress:stress_main -- ", flowcheck::StrJoin(RerunFlags(c), " "));
}

}  // namespace program
}  // namespace flowcheck
