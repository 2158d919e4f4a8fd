// sched/trace_out.cc: the trace's JSON text (trace_out.h).
#include "sched/trace_out.h"

#include <cinttypes>
#include <cstdio>

namespace sched {
namespace {

std::string HeldJson(const HeldLocks& held) {
  std::string o = "[";
  for (size_t t = 0; t < held.size(); ++t) {
    if (t > 0) o += ",";
    o += "[";
    for (size_t i = 0; i < held[t].size(); ++i) {
      if (i > 0) o += ",";
      o += JsonString(held[t][i]);
    }
    o += "]";
  }
  return o + "]";
}

// The probe promises a JSON object; anything else is kept as a string so
// that the trace stays valid JSON.
std::string StateJson(bool has, const std::string& s) {
  if (!has) return "null";
  if (s.size() >= 2 && s.front() == '{' && s.back() == '}') return s;
  return JsonString(s);
}

}  // namespace

std::string JsonString(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        o += "\\\"";
        break;
      case '\\':
        o += "\\\\";
        break;
      case '\n':
        o += "\\n";
        break;
      case '\t':
        o += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

std::string TraceJson(const Trace& trace, const std::string& scenario,
                      const std::map<std::string, std::string>& params, uint64_t trace_hash) {
  char hash[20];
  std::snprintf(hash, sizeof hash, "%016" PRIx64, trace_hash);
  std::string o = "{\"format\": \"flowcheck-trace 1\",\n \"scenario\": " + JsonString(scenario) +
                  ",\n \"params\": {";
  bool first = true;
  for (const auto& [k, v] : params) {
    o += (first ? "" : ", ") + JsonString(k) + ": " + JsonString(v);
    first = false;
  }
  o += "},\n \"trace_hash\": \"" + std::string(hash) + "\",\n \"threads\": [";
  for (size_t i = 0; i < trace.threads.size(); ++i) {
    o += (i > 0 ? ", " : "") + std::string("{\"id\": ") + std::to_string(i) +
         ", \"name\": " + JsonString(trace.threads[i].name) +
         ", \"interrupts\": " + std::to_string(trace.threads[i].interrupts) + "}";
  }
  o += "],\n \"initial\": {\"held\": " + HeldJson(trace.initial_held) +
       ", \"state\": " + StateJson(trace.has_initial_state, trace.initial_state) +
       "},\n \"steps\": [";
  for (size_t i = 0; i < trace.steps.size(); ++i) {
    const TraceStep& s = trace.steps[i];
    char runnable[24];
    std::snprintf(runnable, sizeof runnable, "0x%" PRIx64, s.runnable);
    o += std::string(i > 0 ? ",\n  " : "\n  ") + "{\"step\": " + std::to_string(s.step) +
         ", \"thread\": " + std::to_string(s.thread) + ", \"kind\": " + JsonString(s.kind) +
         ", \"label\": " + JsonString(s.label) + ", \"lock\": " + JsonString(s.lock) +
         ", \"chosen\": " + std::to_string(s.chosen) + ", \"runnable\": \"" + runnable +
         "\", \"held\": " + HeldJson(s.held) + ", \"state\": " + StateJson(s.has_state, s.state) +
         "}";
  }
  o += "],\n \"failure\": ";
  if (trace.failed) {
    o += "{\"kind\": " + JsonString(trace.failure_kind) +
         ", \"line\": " + JsonString(trace.failure_line) +
         ", \"after_step\": " + std::to_string(trace.failure_after_step) +
         ", \"thread\": " + std::to_string(trace.failure_thread) + "}";
  } else {
    o += "null";
  }
  return o + "}\n";
}

}  // namespace sched
