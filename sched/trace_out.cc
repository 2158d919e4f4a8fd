// sched/trace_out.cc: the trace's JSON text (trace_out.h).
#include "sched/trace_out.h"

#include <cinttypes>
#include <cstdio>

#include "common/strings.h"

namespace sched {

using flowcheck::JsonQuote;

namespace {

std::string HeldJson(const HeldLocks& held) {
  std::string o = "[";
  for (size_t t = 0; t < held.size(); ++t) {
    if (t > 0) o += ",";
    o += "[";
    for (size_t i = 0; i < held[t].size(); ++i) {
      if (i > 0) o += ",";
      o += JsonQuote(held[t][i]);
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
  return JsonQuote(s);
}

}  // namespace

std::string TraceJson(const Trace& trace, const std::string& scenario,
                      const std::map<std::string, std::string>& params, uint64_t trace_hash) {
  char hash[20];
  std::snprintf(hash, sizeof hash, "%016" PRIx64, trace_hash);
  std::string o = "{\"format\": \"flowcheck-trace 1\",\n \"scenario\": " + JsonQuote(scenario) +
                  ",\n \"params\": {";
  bool first = true;
  for (const auto& [k, v] : params) {
    o += (first ? "" : ", ") + JsonQuote(k) + ": " + JsonQuote(v);
    first = false;
  }
  o += "},\n \"trace_hash\": \"" + std::string(hash) + "\",\n \"threads\": [";
  for (size_t i = 0; i < trace.threads.size(); ++i) {
    o += (i > 0 ? ", " : "") + std::string("{\"id\": ") + std::to_string(i) +
         ", \"name\": " + JsonQuote(trace.threads[i].name) +
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
         ", \"thread\": " + std::to_string(s.thread) + ", \"kind\": " + JsonQuote(s.kind) +
         ", \"label\": " + JsonQuote(s.label) + ", \"lock\": " + JsonQuote(s.lock) +
         ", \"chosen\": " + std::to_string(s.chosen) + ", \"runnable\": \"" + runnable +
         "\", \"held\": " + HeldJson(s.held) + ", \"state\": " + StateJson(s.has_state, s.state) +
         "}";
  }
  o += "],\n \"failure\": ";
  if (trace.failed) {
    o += "{\"kind\": " + JsonQuote(trace.failure_kind) +
         ", \"line\": " + JsonQuote(trace.failure_line) +
         ", \"after_step\": " + std::to_string(trace.failure_after_step) +
         ", \"thread\": " + std::to_string(trace.failure_thread) + "}";
  } else {
    o += "null";
  }
  return o + "}\n";
}

}  // namespace sched
