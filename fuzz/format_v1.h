// fuzz/format_v1.h: version 1 of the three formats, as entries of the decoder
// table (input_format.cc is their only user). Frozen: never change what a
// byte means here; a new meaning is a new version with its own file.
#ifndef FLOWCHECK_FUZZ_FORMAT_V1_H_
#define FLOWCHECK_FUZZ_FORMAT_V1_H_

#include <cstdint>
#include <vector>

#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {
namespace v1 {

// Header and record sizes (docs/fuzz-format.md).
inline constexpr size_t kReserveHeader = 2, kReserveRecord = 6;  // op, sel, raw (u32 LE)
inline constexpr size_t kFlowHeader = 5, kFlowRecord = 4;        // op, qp, a, b
inline constexpr size_t kPureHeader = 2, kPureRecord = 10;       // op, sel, raw1, raw2 (u32 LE)

// FormatCodec::decode / ::encode of each format.
void DecodeReserve(const uint8_t* data, uint64_t total_size, Program* p);
void EncodeReserve(const Program& p, std::vector<uint8_t>* out);
void DecodeFlow(const uint8_t* data, uint64_t total_size, Program* p);
void EncodeFlow(const Program& p, std::vector<uint8_t>* out);
void DecodePure(const uint8_t* data, uint64_t total_size, Program* p);
void EncodePure(const Program& p, std::vector<uint8_t>* out);

}  // namespace v1
}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_FORMAT_V1_H_
