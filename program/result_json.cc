// program/result_json.cc: see result_json.h.
#include "program/result_json.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "common/strings.h"

namespace flowcheck {
namespace program {
namespace {

// Builds one JSON object, member by member, in order.
class JsonObject {
 public:
  JsonObject& Raw(const std::string& key, std::string json) {
    members_.emplace_back(key, std::move(json));
    return *this;
  }
  JsonObject& Str(const std::string& key, const std::string& value) {
    return Raw(key, flowcheck::JsonQuote(value));
  }
  JsonObject& Uint(const std::string& key, uint64_t value) {
    return Raw(key, flowcheck::StrCat(value));
  }
  JsonObject& Int(const std::string& key, int64_t value) {
    return Raw(key, flowcheck::StrCat(value));
  }
  JsonObject& Num(const std::string& key, double value) { return Raw(key, JsonNumber(value)); }
  JsonObject& Bool(const std::string& key, bool value) {
    return Raw(key, value ? "true" : "false");
  }
  // A config field by its type.
  JsonObject& Value(const std::string& key, bool v) { return Bool(key, v); }
  JsonObject& Value(const std::string& key, double v) { return Num(key, v); }
  JsonObject& Value(const std::string& key, const std::string& v) { return Str(key, v); }
  JsonObject& Value(const std::string& key, int v) { return Int(key, v); }
  JsonObject& Value(const std::string& key, int64_t v) { return Int(key, v); }
  JsonObject& Value(const std::string& key, uint64_t v) { return Uint(key, v); }
  // On one line ("{"a": 1, "b": 2}") or one member a line (the top level).
  std::string Inline() const { return Render(", ", "{", "}"); }
  std::string Document() const { return Render(",\n  ", "{\n  ", "\n}\n"); }

 private:
  std::string Render(const char* sep, const char* open, const char* close) const {
    std::string s = open;
    for (size_t i = 0; i < members_.size(); ++i) {
      flowcheck::StrAppend(&s, i ? sep : "", flowcheck::JsonQuote(members_[i].first), ": ",
                           members_[i].second);
    }
    return s + close;
  }
  std::vector<std::pair<std::string, std::string>> members_;
};

// "result", "seed", "rerun": the contract's head, first in every document.
JsonObject Head(const char* result, const StressConfig& c) {
  JsonObject o;
  o.Str("result", result).Uint("seed", c.seed).Str("rerun", RerunCommand(c));
  return o;
}

}  // namespace

void WriteStderr(const char* s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = write(STDERR_FILENO, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

PreparedJson::PreparedJson(const std::string& path, std::string json)
    : writer_(path), json_(std::move(json)) {}

int PreparedJson::Write() const {
  const char* step = nullptr;
  const int err = writer_.WriteSignalSafe(json_.data(), json_.size(), &step);
  if (err != 0) {
    // strerrordesc_np is async-signal-safe (glibc >= 2.32); strerror is not.
    const char* text = strerrordesc_np(err);
    WriteStderr("flowcheck: cannot write ");
    WriteStderr(writer_.path().c_str());
    WriteStderr(": ");
    WriteStderr(step != nullptr ? step : "write");
    WriteStderr(" failed: ");
    WriteStderr(text != nullptr ? text : "unknown error");
    WriteStderr("\n");
  }
  return err;
}


std::string SignalName(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return flowcheck::StrCat("signal ", signal);
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
    return flowcheck::StrFormat("%.0f", v);
  // The shortest "%g" form that reads back as `v` (0.05, not 0.05000000000000000277).
  std::string s;
  for (int precision = 1; precision <= 17; ++precision) {
    s = flowcheck::StrFormat("%.*g", precision, v);
    if (std::strtod(s.c_str(), nullptr) == v) break;
  }
  return s;
}

std::string ResultJson(const StressResult& r, int interrupted_by) {
  JsonObject o = Head(interrupted_by != 0 ? "interrupted" : "pass", r.config);
  if (interrupted_by != 0) o.Str("interrupted_by", SignalName(interrupted_by));
  o.Bool("tsan", BuiltWithTsan());
  // The config's kJson fields (program/config.h), in its order.
#define FLOWCHECK_STRESS_JSON_FIELD(type, name, def, uses, help) \
  if ((uses) & kJson) o.Value(#name, r.config.name);
  FLOWCHECK_STRESS_CONFIG_FIELDS(FLOWCHECK_STRESS_JSON_FIELD)
#undef FLOWCHECK_STRESS_JSON_FIELD
  o.Num("seconds", std::round(r.seconds * 1000) / 1000)
      .Uint("ops", r.ops)
      .Num("ops_per_second", std::round(r.ops_per_second() * 10) / 10);
  JsonObject checks;
  checks.Uint("per_op", r.checks).Uint("quiescent_points", r.quiescent_points).Uint("final", 1);
  o.Raw("checks_passed", checks.Inline()).Uint("work_items", r.work_items).Uint("yields", r.yields);
  JsonObject counters;
  for (const auto& c : r.counters) counters.Uint(c.first, c.second);
  o.Raw("counters", counters.Inline());
  std::string ids = "[";
  for (const auto& d : r.divergences) {
    flowcheck::StrAppend(&ids, ids.size() > 1 ? ", " : "", flowcheck::JsonQuote(d.first));
  }
  o.Raw("upstream_divergences", ids + "]");
  return o.Document();
}

std::string FailureJson(const std::string& what, const std::string& detail,
                        const StressConfig& c) {
  return Head("fail", c).Bool("tsan", BuiltWithTsan()).Str("failure", what).Str("detail", detail)
      .Document();
}

std::string InterruptedJson(int signal, const std::string& detail, const StressConfig& c) {
  return Head("interrupted", c).Str("interrupted_by", SignalName(signal)).Str("detail", detail)
      .Document();
}

}  // namespace program
}  // namespace flowcheck
