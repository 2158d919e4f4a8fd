// fuzz/sched_fuzz_seeds.cc: the seeds and the dictionary of sched_fuzz
// (declared in seeds.h with the other targets'). Each seed is a scenario of
// 2-4 threads and the scheduling bytes that make it interleave the way its
// name says (the bytes are read by sched/bytes_strategy.cc: 0 = the current
// thread goes on, 1 = the next runnable thread, ...; past the end no
// preemption). Decision points added to the code later shift what the bytes
// pick, never whether the input is valid: the regression test only asks
// that every seed passes. The seeds named for an interleaving have their
// property in fuzz/sched_seed_search.cc (sched_fuzz_test asserts it); when
// decision points change, `bazel run //fuzz:sched_seed_search` prints the
// schedules that reach it again.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "fuzz/sched_fuzz_format.h"
#include "fuzz/seeds.h"

namespace flowcheck {
namespace fuzz {
namespace {

using Ops = std::vector<FuzzOp>;
using O = FlowOp;

FuzzOp F(FlowOp op, int qp = 0, int64_t arg = 0) { return MakeOp(op, 0, qp, arg); }
FuzzOp Reserve(int32_t last) { return MakeOp(FlowOp::kReserve, SelectorForLast(last), 0, last); }
Ops Reserves(int n) { return Ops(n, Reserve(-1)); }
Ops operator+(Ops a, const Ops& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// `threads[i]` are thread i's ops, its QPs named 0 and 1 (qp#2i, qp#2i+1).
// `schedule`: (decisions to stay, then one byte) pairs, expanded.
Seed SchedSeed(const char* name, uint64_t seed, std::vector<Ops> threads,
               std::vector<std::pair<int, uint8_t>> schedule) {
  Program p;
  p.format = Format::kSched;
  p.seed = seed;
  p.num_qps = static_cast<int>(threads.size()) * sched_v1::kQpsPerThread;
  for (size_t t = 0; t < threads.size(); ++t) {
    for (FuzzOp op : threads[t]) {
      op.qp += static_cast<int>(t) * sched_v1::kQpsPerThread;
      p.ops.push_back(op);
    }
    p.thread_ops.push_back(static_cast<int>(threads[t].size()));
  }
  for (const auto& [stay, byte] : schedule) {
    p.schedule.insert(p.schedule.end(), stay, 0);
    p.schedule.push_back(byte);
  }
  return {name, std::move(p)};
}

}  // namespace

std::vector<Seed> SchedSeeds() {
  return {
      // Every thread in turn, no preemption: the sequential baseline.
      SchedSeed("no-preemption", 1,
                {{F(O::kSetup, 0), F(O::kClear, 0)}, {F(O::kSetup, 0), F(O::kSetup, 1)},
                 {Reserve(3), F(O::kReleaseOwned)}},
                {}),
      // Two threads race for the last free flow, switching at every point.
      SchedSeed("race-for-the-last-flow", 7,
                {Reserves(30) + Ops{F(O::kSetup, 0), F(O::kClear, 0)},
                 {F(O::kSetup, 0), F(O::kSetup, 1), F(O::kRunAllWork), F(O::kClear, 0),
                  F(O::kClear, 1)}},
                {{61, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}}),
      // The FIFO hand-off across threads: t0 takes 31 flows, t1 the 32nd;
      // t2's two QPs queue; t1's clear wakes t2's head, whose send engine
      // (t2's run_all_work) takes the flow, and its clear the next waiter.
      SchedSeed("fifo-handoff-across-threads", 3,
                {Reserves(31), {F(O::kSetup, 0), F(O::kClear, 0)},
                 {F(O::kSetup, 0), F(O::kSetup, 1), F(O::kRunAllWork), F(O::kClear, 0),
                  F(O::kRunAllWork), F(O::kClear, 1)}},
                {{132, 1}, {12, 1}}),
      // Contention on exp_lock: t0 is preempted inside its reserve's
      // section; t1's reserve reaches exp_lock and waits until t0 leaves.
      SchedSeed("exp-lock-contention", 15, {Reserves(2), Reserves(2)}, {{3, 1}}),
      // RcvArray waits and grants of two threads, a flush in between.
      SchedSeed("rarr-and-flush-interleaved", 5,
                {{F(O::kSetup, 0), F(O::kRarrWait, 0), F(O::kFlush, 0), F(O::kClear, 0)},
                 {F(O::kSetup, 0), F(O::kRarrGrant, 0), F(O::kRarrRelease, 0), F(O::kClear, 0)},
                 {F(O::kRunAllWork)}},
                {{3, 1}, {3, 1}, {3, 1}, {3, 2}, {3, 1}, {3, 1}}),
      // The kernel's flush hazard: t2's head is woken by t1's clear, then
      // flushed before its wakeup runs; the next waiter is stranded with a
      // flow free (a known hazard: a failure only with --strict).
      SchedSeed("flush-strands-next-waiter", 9,
                {Reserves(31), {F(O::kSetup, 0), F(O::kClear, 0)},
                 {F(O::kSetup, 0), F(O::kSetup, 1), F(O::kFlush, 0), F(O::kRunAllWork)}},
                {{132, 1}, {5, 1}}),
      // Both QPs come to prefer flow 0 (each held it once), then set up at
      // once, t0 preempted inside its setup's exp_lock section (with a
      // decision point in kern_reserve_flow between its test and its set,
      // the two would both take flow 0: the split test-then-set mutant).
      SchedSeed("two-setups-prefer-one-flow", 13,
                {{F(O::kSetup, 0), F(O::kClear, 0), F(O::kSetup, 0), F(O::kClear, 0)},
                 {F(O::kSetup, 0), F(O::kClear, 0), F(O::kSetup, 0)}},
                {{0, 1}, {14, 1}, {18, 1}}),
      // Four threads, RESYNC and wants_flow among setups and work.
      SchedSeed("four-threads-resync", 11,
                {{F(O::kSetup, 0), MakeOp(O::kResync, 0, 0, 0), F(O::kClearResync, 0),
                  F(O::kClear, 0)},
                 {F(O::kSetWantsFlow, 0, 1), F(O::kSetup, 0), F(O::kRunWork), F(O::kClear, 0)},
                 {Reserve(5), Reserve(5), F(O::kReleaseOwned, 0, 1)},
                 {F(O::kRunAllWork), F(O::kSetup, 1), F(O::kClear, 1)}},
                {{2, 1}, {2, 1}, {2, 1}, {2, 1}, {2, 3}, {2, 2}, {2, 1}}),
  };
}

std::string SchedDictionaryText() {
  std::string s = absl::StrFormat(
      "# sched_fuzz: written by `bazel run //fuzz:make_seeds` (fuzz/sched_fuzz_seeds.cc; do\n"
      "# not edit). Records are flow_fuzz's (see flow_fuzz.dict); docs/fuzz-format.md.\n"
      "header=\"S\\x01\"\n"
      "header_4threads=\"S\\x01\\x02\\x00\\x00\\x04\\x04\\x04\\x04\"\n");
  // The flow records, by name, as the 'F' dictionary has them.
  const std::string flow = DictionaryText(Format::kFlow);
  size_t at = 0;
  while (at < flow.size()) {
    const size_t end = flow.find('\n', at);
    const std::string line = flow.substr(at, end - at);
    at = end == std::string::npos ? flow.size() : end + 1;
    if (line.empty() || line[0] == '#' || line.rfind("header", 0) == 0) continue;
    s += line + "\n";
  }
  // Scheduling bytes: stay, switch to the next or the one after.
  s += "stay_8=\"\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\"\n";
  s += "switch_every_point=\"\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\"\n";
  s += "switch_next_next=\"\\x02\\x02\\x02\\x02\"\n";
  return s;
}

}  // namespace fuzz
}  // namespace flowcheck
