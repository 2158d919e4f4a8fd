// fuzz/sched_fuzz_format.h: version 2 of the 'S' format (sched_fuzz), as an
// entry of the one decoder table (fuzz/input_format.cc is its only user): a
// concurrent program of the engine (program/op_table.h) and its schedule.
// Frozen: never change what a byte means here; a new meaning is a new
// version. docs/fuzz-format.md has the byte table.
//
//   'S' 0x02 shape free s0 s1 n0 n1 n2 n3 ni | records | scheduling bytes
//
// shape: bits 0-1 the op threads - 1 (1..4), bit 2 rcv-irq, bit 3 each
// thread's QPs - 1 (1..2), bit 4 the workers - 1 (1..2); the other bits are
// ignored. free % 32 + 1 flows are left free at the start (the rest held as
// bare flows). The model's seed is s0 | s1 << 8. Op thread i has n_i % 17
// records (0..16), rcv-irq n_i % 17 (with bit 2; the counts of absent
// participants are ignored and encoded 0); the records follow in that
// order, 3 bytes each: the op's row in program/op_table.h (rows are only
// ever appended; a byte past the table is an undefined op: skipped), its
// argument A (0..255) and B: for segment and write_alloc (b % 9) * 2
// pagesets (0: a layout drawn at random), for bare_reserve the preferred
// flow as a signed byte, else ignored (encoded 0). Every byte after the
// records is a scheduling byte (sched/bytes_strategy.cc), at most
// kMaxScheduleBytes of them (the rest is counted as trailing).
//
// Version 1 (2-4 threads of 'F' records, run by an executor of its own) is
// no longer decoded: its programs are not programs of the engine
// (docs/fuzz-format.md says what replaced its inputs).
#ifndef FLOWCHECK_FUZZ_SCHED_FUZZ_FORMAT_H_
#define FLOWCHECK_FUZZ_SCHED_FUZZ_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {
namespace sched_v2 {

inline constexpr size_t kHeader = 11;
inline constexpr size_t kRecord = 3;  // op, A, B
inline constexpr int kMaxThreads = 4;
inline constexpr int kMaxRecordsPerParticipant = 16;
// Records + scheduling bytes never exceed kMaxOps records' worth, so
// MaxUsefulInputBytes() (header + kMaxOps records) covers the whole input.
inline constexpr size_t kMaxScheduleBytes =
    kMaxOps * kRecord - (kMaxThreads + 1) * kMaxRecordsPerParticipant * kRecord;

// FormatCodec::decode / ::encode.
void Decode(const uint8_t* data, uint64_t total_size, Program* p);
void Encode(const Program& p, std::vector<uint8_t>* out);

}  // namespace sched_v2
}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_SCHED_FUZZ_FORMAT_H_
