// sched/trace_out.h: the trace of one controlled execution, what
// tools/timeline.py draws (--trace_out=FILE.json, Options::trace_out).
//
// Recorded only when asked for (it symbolizes every held lock at every
// decision). Per decision: the step number, the thread that reached the
// point, the point's kind and label, the lock it concerns (class name), the
// thread chosen to run next (it runs until the next decision: "the step");
// every thread's locks held during the step (class names, outermost first:
// held at the decision, the lock the chosen thread takes first thing, and
// held at the next decision; a lock of one class is listed once per
// thread); and the scenario's state string after the step
// (sched::SetStateProbe). Also the failure, if any, and after which step it
// fired.
//
// JSON shape (format 1; every key always present):
//   {"format": "flowcheck-trace 1", "scenario": S, "params": {K: V},
//    "trace_hash": HEX, "threads": [{"id": 0, "name": N, "interrupts": -1}],
//    "initial": {"held": [[CLASS...] per thread], "state": PROBE},
//    "steps": [{"step": 0, "thread": -1, "kind": "start", "label": "",
//               "lock": "", "chosen": 1, "runnable": "0x3",
//               "held": [[CLASS...] per thread], "state": PROBE}],
//    "failure": null | {"kind": K, "line": L, "after_step": N, "thread": T}}
// PROBE is the probe's text as a JSON value when it is a JSON object
// ("{...}"), else as a string; null without a probe. `thread` -1: the
// controller (the start, the setup, an AtEnd check). after_step -1: before
// any decision.
#ifndef FLOWCHECK_SCHED_TRACE_OUT_H_
#define FLOWCHECK_SCHED_TRACE_OUT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sched {

// Every thread's held lock classes, indexed by thread id.
using HeldLocks = std::vector<std::vector<std::string>>;

struct TraceStep {
  uint64_t step = 0;
  int thread = -1;  // that reached the point; -1: the controller (start)
  std::string kind, label, lock;
  int chosen = -1;
  uint64_t runnable = 0;
  HeldLocks held;  // during the step
  std::string state;  // after the step
  bool has_state = false;
};

struct TraceThread {
  std::string name;
  int interrupts = -1;
};

struct Trace {
  bool recording = false;
  std::vector<TraceThread> threads;
  HeldLocks initial_held;
  std::string initial_state;
  bool has_initial_state = false;
  std::vector<TraceStep> steps;
  bool failed = false;
  std::string failure_kind, failure_line;
  int64_t failure_after_step = -1;
  int failure_thread = -1;
};

// The JSON text above.
std::string TraceJson(const Trace& trace, const std::string& scenario,
                      const std::map<std::string, std::string>& params, uint64_t trace_hash);

}  // namespace sched

#endif  // FLOWCHECK_SCHED_TRACE_OUT_H_
