// fuzz/sched_fuzz_format.cc: 'S' version 2 (see sched_fuzz_format.h).
#include "fuzz/sched_fuzz_format.h"

#include <algorithm>

#include "program/op_table.h"

namespace flowcheck {
namespace fuzz {
namespace sched_v2 {
namespace {

using program::kListedOpRows;
using program::kNumListedOps;

// B as the row's arguments read it (canonical: what Encode writes back).
int64_t ArgB(int kind, uint8_t b) {
  switch (kListedOpRows[kind].args) {
    case program::kSlotPagesets: return (b % 9) * 2;
    case program::kContextFlow: return static_cast<int8_t>(b);
    default: return 0;
  }
}

// The byte ArgB reads back as `b` (for an op past the table: b as is).
uint8_t ByteB(int kind, int64_t b) {
  if (kind < kNumListedOps && kListedOpRows[kind].args == program::kSlotPagesets) {
    return static_cast<uint8_t>(b / 2);
  }
  return static_cast<uint8_t>(b);
}

}  // namespace

void Decode(const uint8_t* data, uint64_t total_size, Program* p) {
  SchedShape& s = p->shape;
  s.threads = (data[2] & 3) + 1;
  s.irq = (data[2] & 4) != 0;
  s.qps_per_thread = ((data[2] >> 3) & 1) + 1;
  s.workers = ((data[2] >> 4) & 1) + 1;
  s.free_flows = data[3] % 32 + 1;
  p->seed = static_cast<uint64_t>(data[4]) | static_cast<uint64_t>(data[5]) << 8;
  p->num_qps = s.threads * s.qps_per_thread;
  uint64_t at = kHeader;
  const int participants = s.threads + (s.irq ? 1 : 0);
  for (int i = 0; i < participants; ++i) {
    const int n_byte = i < s.threads ? 6 + i : 10;
    const uint64_t want = data[n_byte] % (kMaxRecordsPerParticipant + 1);
    const uint64_t have = std::min<uint64_t>(want, (total_size - at) / kRecord);
    int decoded = 0;
    for (uint64_t r = 0; r < have; ++r, at += kRecord) {
      const uint8_t kind = data[at];
      if (kind >= kNumListedOps) {
        ++p->unknown_skipped;
        continue;
      }
      FuzzOp op;
      op.code = kind;
      op.qp = data[at + 1];
      op.arg = ArgB(kind, data[at + 2]);
      p->ops.push_back(op);
      ++decoded;
    }
    p->thread_ops.push_back(decoded);
    if (have < want) {  // the input ends inside this participant's records
      p->trailing_bytes = total_size - at;
      at = total_size;
    }
  }
  const uint64_t rest = total_size - at;
  const uint64_t sched = std::min<uint64_t>(rest, kMaxScheduleBytes);
  p->schedule.assign(data + at, data + at + sched);
  p->trailing_bytes += rest - sched;
}

void Encode(const Program& p, std::vector<uint8_t>* out) {
  const SchedShape& s = p.shape;
  const uint8_t shape = static_cast<uint8_t>(((s.threads - 1) & 3) | (s.irq ? 4 : 0) |
                                             ((s.qps_per_thread - 1) & 1) << 3 |
                                             ((s.workers - 1) & 1) << 4);
  out->insert(out->end(), {static_cast<uint8_t>(Format::kSched), p.version, shape,
                           static_cast<uint8_t>(s.free_flows - 1), static_cast<uint8_t>(p.seed),
                           static_cast<uint8_t>(p.seed >> 8)});
  const int participants = static_cast<int>(p.thread_ops.size());
  uint8_t counts[5] = {};
  for (int i = 0; i < participants && i < 5; ++i) {
    const bool irq = s.irq && i == participants - 1;
    counts[irq ? 4 : i] = static_cast<uint8_t>(p.thread_ops[i]);
  }
  out->insert(out->end(), counts, counts + 5);
  for (const FuzzOp& op : p.ops) {
    // A value a record cannot hold: Encode's decode check names the op.
    out->insert(out->end(), {op.code, static_cast<uint8_t>(op.qp), ByteB(op.code, op.arg)});
  }
  out->insert(out->end(), p.schedule.begin(), p.schedule.end());
}

}  // namespace sched_v2
}  // namespace fuzz
}  // namespace flowcheck
