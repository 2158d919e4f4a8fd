// fuzz/sched_fuzz_seeds.cc: the seeds and the dictionary of sched_fuzz
// (declared in seeds.h with the other targets'). Each seed is a concurrent
// program of the engine, written in its own text (program/op_table.h), and
// the scheduling bytes that make it interleave the way its name says (read
// by sched/bytes_strategy.cc: 0 = the current thread goes on, 1 = the next
// runnable one, ...; past the end no preemption). Decision points added to
// the code later shift what the bytes pick, never whether the input is
// valid: the regression test only asks that every seed passes. The flush
// hazard's seed must also fail under --strict (//fuzz:sched_fuzz_test); when
// decision points change, `bazel run //fuzz:sched_seed_search` prints the
// bytes that reach it again.
#include <string>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "fuzz/seeds.h"
#include "program/op_table.h"

namespace flowcheck {
namespace fuzz {
namespace {

// `lists`: each participant's ops (op threads, then rcv-irq if shape.irq).
// `schedule`: (decisions to stay, then one byte) pairs, expanded.
Seed SchedSeed(const char* name, SchedShape shape, uint64_t seed, std::vector<std::string> lists,
               std::vector<std::pair<int, uint8_t>> schedule) {
  Program p;
  p.format = Format::kSched;
  p.seed = seed;
  p.shape = shape;
  p.num_qps = shape.threads * shape.qps_per_thread;
  for (const std::string& text : lists) {
    std::vector<program::ListedOp> ops;
    std::string error;
    if (!program::ParseOps(text, &ops, &error)) {
      std::fprintf(stderr, "sched_fuzz seed %s: %s\n", name, error.c_str());
      std::abort();
    }
    for (const program::ListedOp& op : ops) {
      p.ops.push_back(MakeOp(static_cast<uint8_t>(op.kind), 0, op.a, op.b));
    }
    p.thread_ops.push_back(static_cast<int>(ops.size()));
  }
  for (const auto& [stay, byte] : schedule) {
    p.schedule.insert(p.schedule.end(), stay, 0);
    p.schedule.push_back(byte);
  }
  return {name, std::move(p)};
}

// threads, rcv-irq, QPs per thread, workers, free flows.
constexpr SchedShape kTwo{2, false, 1, 1, 1};
constexpr SchedShape kTwoIrq{2, true, 2, 2, 1};

}  // namespace

std::vector<Seed> SchedSeeds() {
  return {
      // Every thread in turn, no preemption: the sequential baseline.
      SchedSeed("no-preemption", kTwoIrq, 1,
                {"setup@0,use@0,release@0,bare_reserve@0.3,bare_release@0",
                 "setup@1,setup@0,release@1", "resync@0,bare_reserve@0.32,bare_release@0"},
                {}),
      // Two threads race for the one free flow, switching at every point:
      // the loser waits on flow_queue until the winner's release wakes it.
      SchedSeed("race-for-the-last-flow", kTwo, 7,
                {"setup@0,use@0,release@0", "setup@0,poll@0,retry@0,release@0"},
                {{0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}}),
      // The kernel's flush hazard: stress-1's head is woken by stress-0's
      // release, then flushed (given up) before its wakeup runs; without the
      // harness's hand-off (--strict) the next waiter is stranded with a
      // flow free: [invariant no-lost-wakeup]. Bytes from
      // //fuzz:sched_seed_search --candidates/--try: they reach the hazard
      // on the model and on the 6.1, 6.12 and hfi2-shaped texts alike.
      SchedSeed("flush-strands-next-waiter", SchedShape{2, false, 2, 1, 1}, 9,
                {"setup@0,release@0", "setup@0,setup@1,give_up@0"},
                {{17, 1}, {13, 1}, {4, 2}, {12, 1}}),
      // Both QPs come to prefer flow 30 (each held it once), then set up at
      // once, stress-0 preempted inside its reservation (with a decision
      // point in kern_reserve_flow between its test and its set, the two
      // would both take flow 30: the catalog's reserve-split-test-then-set;
      // bytes from //fuzz:sched_seed_search in a tree with that bug).
      SchedSeed("two-setups-prefer-one-flow", SchedShape{2, false, 1, 1, 2}, 13,
                {"setup@0,release@0,setup@0", "setup@0,release@0,setup@0"}, {{26, 1}}),
      // RcvArray waits and grants of two threads, a flush in between.
      SchedSeed("rarr-and-flush-interleaved", kTwo, 5,
                {"setup@0,rarr_wait@0,flush_rarr@0,release@0",
                 "setup@0,rarr_wait@0,rarr_grant@0,rarr_release@0,release@0"},
                {{3, 1}, {3, 1}, {3, 1}, {3, 2}, {3, 1}, {3, 1}}),
      // Segments of both roles on the RcvArray side, interleaved: READ
      // segments of 4 and 12 pagesets, a WRITE segment, their completions.
      SchedSeed("segments-read-and-write", SchedShape{2, false, 1, 1, 4}, 3,
                {"setup@0,segment@0.4,segment@0.12,segment_done@0,segment_done@0,read_complete@0",
                 "write_alloc@0.4,write_data@0,write_idle@0"},
                {{5, 1}, {5, 1}, {5, 1}, {5, 1}, {5, 1}}),
      // Both roles short of TIDs, in turn, no preemption: stress-0's QP 0
      // reads (2 segments), its QP 1 is asked for a TID WRITE whose fourth
      // segment finds no TIDs (a wait on rarr_queue from the receive path:
      // an RNR NAK); the READ's responses free TIDs and its completion its
      // flow, the request resent after the NAK gets them. stress-1's READ
      // then waits behind the queue's head (req->state QUEUED).
      SchedSeed("both-roles-short-of-tids", SchedShape{2, false, 2, 1, 2}, 5,
                {"setup@0,segment@0.4,segment@0.4,write_alloc@1.16,segment_done@0,"
                 "segment_done@0,write_alloc@1,write_data@1,write_idle@1",
                 "setup@0,segment@0.16,segment@0.16,segment_done@0"},
                {}),
      // A TID WRITE request arrives at a QP while the one free flow is
      // another's: the responder's allocator waits on flow_queue, sizes its
      // RNR timeout from its place in the queue and schedules the NAK.
      SchedSeed("write-waits-for-a-flow", kTwo, 6, {"setup@0,use@0", "write_alloc@0.4"}, {}),
      // Four threads and the interrupt: RESYNCs, bare flows and setups.
      SchedSeed("four-threads-and-irq", SchedShape{4, true, 1, 2, 2}, 11,
                {"setup@0,resync_ack@0,release@0", "bare_reserve@0.5,setup@0,bare_release@0",
                 "setup@0,give_up@0", "resync@1,setup@0,release@0", "resync@0,bare_reserve@0.1"},
                {{2, 1}, {2, 1}, {2, 1}, {2, 1}, {2, 3}, {2, 2}, {2, 1}}),
  };
}

std::string SchedDictionaryText() {
  std::string s =
      "# sched_fuzz: written by `bazel run //fuzz:make_seeds` (fuzz/sched_fuzz_seeds.cc; do\n"
      "# not edit). Records are 3 bytes: an op of program/op_table.h, A, B;\n"
      "# docs/fuzz-format.md.\n"
      "header=\"S\\x02\"\n"
      "header_4threads_irq=\"S\\x02\\x1f\\x00\\x00\\x00\\x08\\x08\\x08\\x08\\x08\"\n";
  for (int k = 0; k < program::kNumListedOps; ++k) {
    flowcheck::StrAppendFormat(&s, "%s=\"\\x%02x\\x00\\x00\"\n", program::kListedOpRows[k].name, k);
  }
  // Scheduling bytes: stay, switch to the next or the one after.
  s += "stay_8=\"\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\"\n";
  s += "switch_every_point=\"\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\"\n";
  s += "switch_next_next=\"\\x02\\x02\\x02\\x02\"\n";
  return s;
}

}  // namespace fuzz
}  // namespace flowcheck
