// fuzz/sched_fuzz_format.cc: 'S' version 1 (see sched_fuzz_format.h). The
// threads' records are decoded and encoded by the 'F' v1 codec itself
// (fuzz/format_v1.h), so an 'S' op means exactly what the same 'F' record
// means; only the QP numbering (per thread) and the framing are this file's.
#include "fuzz/sched_fuzz_format.h"

#include <algorithm>

#include "fuzz/format_v1.h"

namespace flowcheck {
namespace fuzz {
namespace sched_v1 {
namespace {

// The 'F' v1 header the records of one thread are decoded under: 2 QPs
// (the thread's), the program's seed.
void FlowHeader(uint8_t s0, uint8_t s1, std::vector<uint8_t>* out) {
  out->assign({static_cast<uint8_t>(Format::kFlow), 1, kQpsPerThread - 1, s0, s1});
}

}  // namespace

void Decode(const uint8_t* data, uint64_t total_size, Program* p) {
  const int threads = data[2] % (kMaxThreads - kMinThreads + 1) + kMinThreads;
  p->num_qps = threads * kQpsPerThread;
  p->seed = static_cast<uint64_t>(data[3]) | static_cast<uint64_t>(data[4]) << 8;
  uint64_t at = kHeader;
  std::vector<uint8_t> buf;
  Program flow;
  for (int t = 0; t < threads; ++t) {
    const uint64_t want = data[5 + t] % (kMaxRecordsPerThread + 1);
    const uint64_t have = std::min<uint64_t>(want, (total_size - at) / kRecord);
    FlowHeader(data[3], data[4], &buf);
    buf.insert(buf.end(), data + at, data + at + have * kRecord);
    flow.ops.clear();
    flow.unknown_skipped = 0;
    v1::DecodeFlow(buf.data(), buf.size(), &flow);
    for (FuzzOp op : flow.ops) {
      op.qp += t * kQpsPerThread;
      p->ops.push_back(op);
    }
    p->thread_ops.push_back(static_cast<int>(flow.ops.size()));
    p->unknown_skipped += flow.unknown_skipped;
    at += have * kRecord;
    if (have < want) {  // the input ends inside this thread's records
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
  const int threads = static_cast<int>(p.thread_ops.size());
  out->insert(out->end(), {static_cast<uint8_t>(Format::kSched), p.version,
                           static_cast<uint8_t>(threads - kMinThreads),
                           static_cast<uint8_t>(p.seed), static_cast<uint8_t>(p.seed >> 8)});
  for (int t = 0; t < kMaxThreads; ++t) {
    out->push_back(static_cast<uint8_t>(t < threads ? p.thread_ops[t] : 0));
  }
  size_t first = 0;
  std::vector<uint8_t> buf;
  for (int t = 0; t < threads; ++t) {
    Program flow;
    flow.format = Format::kFlow;
    flow.version = 1;
    flow.num_qps = kQpsPerThread;
    for (int i = 0; i < p.thread_ops[t] && first + i < p.ops.size(); ++i) {
      FuzzOp op = p.ops[first + i];
      op.qp -= t * kQpsPerThread;  // out of range: Encode's decode check names the op
      flow.ops.push_back(op);
    }
    first += p.thread_ops[t];
    buf.clear();
    v1::EncodeFlow(flow, &buf);
    out->insert(out->end(), buf.begin() + v1::kFlowHeader, buf.end());
  }
  out->insert(out->end(), p.schedule.begin(), p.schedule.end());
}

}  // namespace sched_v1
}  // namespace fuzz
}  // namespace flowcheck
