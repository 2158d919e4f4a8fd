// fuzz/sched_seed_search.cc: the seeds' properties and the schedule search
// (contract in the header).
#include "fuzz/sched_seed_search.h"

#include <cstddef>

#include "fuzz/executor/sched_executor.h"

namespace flowcheck {
namespace fuzz {

SchedulePairs PairsOf(const std::vector<uint8_t>& schedule) {
  SchedulePairs pairs;
  int stay = 0;
  for (uint8_t b : schedule) {
    if (b == 0) {
      ++stay;
    } else {
      pairs.emplace_back(stay, b);
      stay = 0;
    }
  }
  return pairs;
}

std::vector<uint8_t> Expand(const SchedulePairs& pairs) {
  std::vector<uint8_t> s;
  for (const auto& [stay, byte] : pairs) {
    s.insert(s.end(), stay, 0);
    s.push_back(byte);
  }
  return s;
}

namespace {

SchedExecResult Traced(const Program& p) {
  SchedExecOptions o;
  o.trace = true;
  return ExecuteSched(p, o);
}

int At(const SchedExecResult& r, const std::string& text) {
  for (size_t i = 0; i < r.events.size(); ++i) {
    if (r.events[i].find(text) != std::string::npos) return static_cast<int>(i);
  }
  return -1;
}

// t2's two setups wait (-EAGAIN) between t1's setup taking the last flow
// and t1's clear, which hands the flow on; the oracle compares to the end.
std::string FifoHandoff(const Program& p) {
  const SchedExecResult r = Traced(p);
  if (!r.ok) return "fails: " + r.line;
  std::string order;
  for (const std::string& e : r.events) {
    if (e.find("under exp_lock: setup_hw_flow(qp#2) -> 0") != std::string::npos) order += "A";
    if (e.find("under exp_lock: setup_hw_flow(qp#4) -> -11") != std::string::npos) order += "B";
    if (e.find("under exp_lock: setup_hw_flow(qp#5) -> -11") != std::string::npos) order += "C";
    if (e.find("under exp_lock: clear_hw_flow(qp#2)") != std::string::npos) order += "D";
  }
  if (order != "ABCD") return "sections in the order " + order + ", not ABCD";
  if (!r.oracle_off.empty()) return "the oracle stopped: " + r.oracle_off;
  return "";
}

// t1 begins its second reserve (and reaches exp_lock) while t0 is inside
// its reserve's section; t1's section comes only after t0 left it.
std::string ExpLockContention(const Program& p) {
  const SchedExecResult r = Traced(p);
  if (!r.ok) return "fails: " + r.line;
  const int t0_in = At(r, "[t0]   under exp_lock: reserve_flow -> 0");
  const int t1_begins = At(r, "[t1] op #2 reserve(last=-1) begins");
  const int t0_back = At(r, "[t0]   back in its exp_lock section");
  const int t1_in = At(r, "[t1]   under exp_lock: reserve_flow");
  if (t0_in < 0 || t1_begins < 0 || t0_back < 0 || t1_in < 0) return "an event is missing";
  if (!(t0_in < t1_begins && t1_begins < t0_back && t0_back < t1_in)) {
    return "t1 did not wait for t0's exp_lock section";
  }
  return "";
}

// Both QPs held flow 0 once; t1's second setup begins while t0 is inside
// its second one, and t0's section (kern_reserve_flow taking flow 0 under
// exp_lock) comes first: t1 reached exp_lock while t0 held it there. A
// decision point between kern_reserve_flow's test and set falls in that
// window (the split test-then-set mutant then hands flow 0 out twice).
std::string TwoSetupsOverlap(const Program& p) {
  const SchedExecResult r = Traced(p);
  if (!r.ok) return "fails: " + r.line;
  const int t0_begins = At(r, "[t0] op #2 setup_hw_flow(qp#0) begins");
  const int t1_begins = At(r, "[t1] op #6 setup_hw_flow(qp#2) begins");
  const int t0_ends = At(r, "[t0] op #2 ends");
  const int t1_ends = At(r, "[t1] op #6 ends");
  if (t0_begins < 0 || t1_begins < 0 || t0_ends < 0 || t1_ends < 0) return "an event is missing";
  int t0_in = -1, t1_in = -1;
  for (size_t i = 0; i < r.events.size(); ++i) {
    const std::string& e = r.events[i];
    const int at = static_cast<int>(i);
    if (t0_in < 0 && at > t0_begins && e.find("[t0]   under exp_lock: setup_hw_flow(qp#0)") !=
                                           std::string::npos) {
      t0_in = at;
    }
    if (t1_in < 0 && at > t1_begins && e.find("[t1]   under exp_lock: setup_hw_flow(qp#2)") !=
                                           std::string::npos) {
      t1_in = at;
    }
  }
  if (!(t0_begins < t1_begins && t1_begins < t0_in && t0_in < t1_in)) {
    return "the second setups do not overlap with t0's section first";
  }
  return "";
}

// A hazard note (and nothing else) by default, the hazard's failure strict.
std::string FlushStrands(const Program& p) {
  SchedExecOptions o;
  const SchedExecResult def = ExecuteSched(p, o);
  if (!def.ok) return "fails by default: " + def.line;
  if (def.hazards.size() != 1 ||
      def.hazards[0].find("flush-strands-waiter") == std::string::npos) {
    return "not exactly one flush-strands-waiter note";
  }
  // The oracle compares to the end, so that a replay shows the model's and
  // the oracle's result of every section (reproduce_sched_test reads them).
  if (!def.oracle_off.empty()) return "the oracle stopped: " + def.oracle_off;
  o.strict = true;
  const SchedExecResult strict = ExecuteSched(p, o);
  if (strict.ok || strict.kind != "hazard flush-strands-waiter") return "strict: no hazard failure";
  return "";
}

bool Search(Program& p, const SchedulePairs& shape, SeedProperty property, int max_stay,
            SchedulePairs& prefix, size_t pos, uint64_t* executions) {
  const size_t i = prefix.size();
  // Decisions of the run with the prefix alone: a byte at or past that
  // position is never read, so larger stays change nothing.
  p.schedule = Expand(prefix);
  ++*executions;
  const uint64_t decisions = ExecuteSched(p, {}).decisions;
  for (int stay = 0; stay <= max_stay && pos + stay < decisions; ++stay) {
    prefix.emplace_back(stay, shape[i].second);
    bool hit;
    if (i + 1 == shape.size()) {
      p.schedule = Expand(prefix);
      ++*executions;
      hit = property(p).empty();
    } else {
      hit = Search(p, shape, property, max_stay, prefix, pos + stay + 1, executions);
    }
    if (hit) return true;
    prefix.pop_back();
  }
  return false;
}

}  // namespace

const std::vector<NamedProperty>& SeedProperties() {
  static const std::vector<NamedProperty>* props = new std::vector<NamedProperty>{
      {"fifo-handoff-across-threads", FifoHandoff,
       "t2's setups wait between t1's setup and clear; the oracle compares to the end"},
      {"exp-lock-contention", ExpLockContention,
       "t1 reaches exp_lock while t0 is inside its reserve's section"},
      {"two-setups-prefer-one-flow", TwoSetupsOverlap,
       "t1's second setup reaches exp_lock while t0 is inside its second setup"},
      {"flush-strands-next-waiter", FlushStrands,
       "a flush-strands-waiter note by default (the oracle comparing to the end), that "
       "hazard's failure with strict"},
  };
  return *props;
}

bool SearchSchedule(Program p, const SchedulePairs& shape, SeedProperty property, int max_stay,
                    SchedulePairs* found, uint64_t* executions) {
  SchedulePairs prefix;
  *executions = 0;
  if (shape.empty()) {
    p.schedule.clear();
    ++*executions;
    if (!property(p).empty()) return false;
    found->clear();
    return true;
  }
  if (!Search(p, shape, property, max_stay, prefix, 0, executions)) return false;
  *found = prefix;
  return true;
}

}  // namespace fuzz
}  // namespace flowcheck
