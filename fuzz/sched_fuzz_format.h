// fuzz/sched_fuzz_format.h: version 1 of the 'S' format (sched_fuzz), as an
// entry of the one decoder table (fuzz/input_format.cc is its only user).
// Frozen: never change what a byte means here; a new meaning is a new
// version. docs/fuzz-format.md has the byte table.
//
//   'S' 0x01 t s0 s1 n0 n1 n2 n3 | records of thread 0 | ... | scheduling bytes
//
// t % 3 + 2 threads (2..4), each owning kQpsPerThread QPs (thread i: QPs
// 2i, 2i+1), all on the one context: they share its flows and wait queues.
// The Lockstep seed is s0 | s1 << 8. Thread i has n_i % 33 records (0..32;
// the n of absent threads are ignored and encoded 0), each a flow_fuzz v1
// record decoded by the 'F' decoder itself (its qp byte taken modulo 2 and
// mapped to the thread's QPs). Every byte after the records is a scheduling
// byte (sched/bytes_strategy.cc), at most kMaxScheduleBytes of them (the
// rest is counted as trailing).
#ifndef FLOWCHECK_FUZZ_SCHED_FUZZ_FORMAT_H_
#define FLOWCHECK_FUZZ_SCHED_FUZZ_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {
namespace sched_v1 {

inline constexpr size_t kHeader = 9;
inline constexpr size_t kRecord = 4;  // a flow_fuzz v1 record: op, qp, a, b
inline constexpr int kMinThreads = 2, kMaxThreads = 4;
inline constexpr int kQpsPerThread = 2;
inline constexpr int kMaxRecordsPerThread = 32;
// Records + scheduling bytes never exceed kMaxOps records' worth, so
// MaxUsefulInputBytes() (header + kMaxOps records) covers the whole input.
inline constexpr size_t kMaxScheduleBytes =
    kMaxOps * kRecord - kMaxThreads * kMaxRecordsPerThread * kRecord;

// FormatCodec::decode / ::encode.
void Decode(const uint8_t* data, uint64_t total_size, Program* p);
void Encode(const Program& p, std::vector<uint8_t>* out);

}  // namespace sched_v1
}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_SCHED_FUZZ_FORMAT_H_
