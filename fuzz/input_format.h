// fuzz/input_format.h: THE decoder (and encoder) of flowcheck's fuzz inputs.
// The fuzz targets, the reproduce command, the seed writer and the tests all
// go through here, so a crash file means the same program to each of them.
//
//   DecodeResult d = Decode(data, size);          // format and version from the header
//   if (!d.ok()) { puts(d.error.c_str()); ... }   // empty, truncated, foreign, no decoder
//   ExecResult r = Execute(d.program, options);   // fuzz/executor.h
//   EncodeResult e = Encode(d.program);           // bytes that decode to the same program
//
// Byte layout (docs/fuzz-format.md has the full tables): a header whose first
// byte names the format ('R' reserve, 'F' flow, 'P' pure) and whose second is
// the format's version, then fixed-size op records. The ops themselves are
// listed once, in fuzz/op_table.h.
//
// Versions: a decoder is chosen by (format, version) from one table
// (input_format.cc). Within a version the meaning of every byte is frozen; a
// changed meaning is a new version with its own entry, and old entries are
// never removed, so committed corpora, regressions and crash files decode
// forever. Bytes whose (format, version) has no entry are rejected
// (DecodeStatus::kUnknownVersion): the fuzz targets return -1 for them, and
// the regression tests fail on such a committed file (bazel/fuzz.bzl).
//  * An opcode slot a version does not define is skipped (counted, not run).
//  * A trailing partial record is ignored (counted).
//  * At most kMaxOps records are decoded; the rest is ignored (counted).
// Decoding never fails on the body: any byte string after a valid header is
// a valid program. It fails only on the header (DecodeStatus).
#ifndef FLOWCHECK_FUZZ_INPUT_FORMAT_H_
#define FLOWCHECK_FUZZ_INPUT_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/op_table.h"

namespace flowcheck {
namespace fuzz {

enum class Format : uint8_t {
  kReserve = 'R',  // reserve_fuzz: kern_reserve_flow / release on one context
  kFlow = 'F',     // flow_fuzz: the flow layer with 1..8 QPs
  kPure = 'P',     // pure_fuzz: generation arithmetic, register encoding, ...
  kSched = 'S',    // sched_fuzz: a concurrent program of the engine + the scheduling bytes
};

inline constexpr size_t kMaxOps = 512;
inline constexpr int kReserveQps = 2;  // QPs of the reserve target's context
inline constexpr int kMaxFlowQps = 8;

// "reserve_fuzz", "flow_fuzz", "pure_fuzz": the fuzz target of a format.
const char* TargetName(Format f);
// Parses a target name (with or without "_fuzz"/"_fuzzer"); false if unknown.
bool FormatForTarget(const std::string& name, Format* out);
// The op list of a format (fuzz/op_table.h), indexed by enumerator value.
const OpSpec* OpsOf(Format f, int* count);

// One decoded op. `code` is a ReserveOp/FlowOp/PureOp value of the program's
// format; which other fields it uses is its Args (fuzz/op_table.h); the
// fields it does not use are 0, except `qp` in flow programs, which every
// flow record carries.
struct FuzzOp {
  uint8_t code = 0;
  uint8_t sel = 0;  // the selector byte, for the ops whose Args name it
  int qp = 0;       // already reduced modulo the program's QP count
  int64_t arg = 0;
  int64_t arg2 = 0;
  bool operator==(const FuzzOp& o) const {
    return code == o.code && sel == o.sel && qp == o.qp && arg == o.arg && arg2 == o.arg2;
  }
  bool operator!=(const FuzzOp& o) const { return !(*this == o); }
};

// An op written by hand (seeds, dictionaries, tests); `code` is a ReserveOp,
// FlowOp or PureOp, or its value.
template <typename Code>
FuzzOp MakeOp(Code code, uint8_t sel, int qp, int64_t arg, int64_t arg2 = 0) {
  FuzzOp op;
  op.code = static_cast<uint8_t>(code);
  op.sel = sel;
  op.qp = qp;
  op.arg = arg;
  op.arg2 = arg2;
  return op;
}

// 'S' (fuzz/sched_fuzz_format.h): the scenario of a concurrent program of the
// engine (program/controlled.h), one context.
struct SchedShape {
  int threads = 2;         // op threads, 1..4
  bool irq = false;        // rcv-irq, the last participant
  int qps_per_thread = 1;  // 1..2
  int workers = 1;         // 1..2
  int free_flows = 1;      // flows free at the start, 1..32
  bool operator==(const SchedShape& o) const {
    return threads == o.threads && irq == o.irq && qps_per_thread == o.qps_per_thread &&
           workers == o.workers && free_flows == o.free_flows;
  }
};

struct Program {
  Format format = Format::kReserve;
  uint8_t version = 0;
  int num_qps = 0;    // QPs of the Lockstep (0 for pure)
  uint64_t seed = 0;  // Lockstep seed: the context's initial generations
  std::vector<FuzzOp> ops;
  // What the decoder dropped, for the reproducer's listing.
  size_t unknown_skipped = 0;  // records with an undefined opcode
  size_t trailing_bytes = 0;   // a partial record at the end
  size_t capped_records = 0;   // whole records beyond kMaxOps
  // 'S' only (fuzz/sched_fuzz_format.h): ops[] holds op thread 0's ops (an
  // op's code is its row of program/op_table.h, qp its argument A, arg its
  // B), then thread 1's, ..., then rcv-irq's; thread_ops[i] is how many are
  // participant i's (its size is the participant count); `schedule` holds
  // the scheduling bytes. Empty otherwise.
  SchedShape shape;
  std::vector<int> thread_ops;
  std::vector<uint8_t> schedule;
};

// One entry of the decoder table: a (format, version) this build decodes and
// encodes. The functions are the version's own (fuzz/format_v1.h).
struct FormatCodec {
  Format format;
  uint8_t version;
  size_t header_size;  // bytes before the first record
  size_t record_size;
  // Fills the header's fields (num_qps, seed) and decodes the records of an
  // input of `total_size` bytes; `data` holds at least the first
  // min(total_size, header_size + kMaxOps * record_size) of them.
  void (*decode)(const uint8_t* data, uint64_t total_size, Program* p);
  // Appends p's header and one record per op. Encode checks the result by
  // decoding it back, so a value a record cannot hold is reported there.
  void (*encode)(const Program& p, std::vector<uint8_t>* out);
};

// The table entry for a header's two bytes; nullptr when there is none.
const FormatCodec* FindCodec(uint8_t format_byte, uint8_t version);
// The newest version of a format: what Encode of a fresh Program should use.
uint8_t LatestVersion(Format f);
// The most bytes of an input any decoder reads (header + kMaxOps records of
// the largest format): a reader of a crash file needs no more than this.
size_t MaxUsefulInputBytes();

enum class DecodeStatus {
  kOk,
  kEmpty,           // no bytes at all
  kForeign,         // first byte names no format
  kTruncated,       // shorter than its format's header
  kUnknownVersion,  // no decoder in this build for the (format, version)
};

struct DecodeResult {
  DecodeStatus status = DecodeStatus::kEmpty;
  std::string error;  // a sentence for the user when !ok()
  Program program;
  bool ok() const { return status == DecodeStatus::kOk; }
};

// Detects format and version from the header and decodes with that entry.
DecodeResult Decode(const uint8_t* data, size_t size);
// The same for an input of `total_size` bytes of which only the first `size`
// were read: what lies beyond is counted (capped records, trailing bytes) as
// if it had been read, never looked at. Requires
// min(total_size, MaxUsefulInputBytes()) <= size <= total_size (aborts
// otherwise: a caller bug).
DecodeResult DecodePrefix(const uint8_t* data, size_t size, uint64_t total_size);

// The fuzz targets' fast path: decodes into *out (reused, no allocation once
// warm) if the header names `format` and a version of it this build decodes;
// returns false otherwise (the caller rejects the input).
bool DecodeAs(Format format, const uint8_t* data, size_t size, Program* out);

struct EncodeResult {
  std::string error;  // "" on success, else a sentence naming the op
  std::vector<uint8_t> bytes;
  bool ok() const { return error.empty(); }
};

// Writes `p` in its format and version (p.version; 0 means the latest): bytes
// that Decode turns back into exactly p's header fields and ops (FuzzOp ==).
// Fails, naming the first such op, when a value does not fit its record (a
// flow program's `last` is one byte, a selector's class cannot hold the
// value, ...), or when the program has more than kMaxOps ops, QPs or a seed
// its header cannot hold. The dropped-record counts are not encoded.
EncodeResult Encode(const Program& p);

// The op as a readable line: "reserve(last=-1)", "rarr_grant(qp#2)", ...
std::string DescribeOp(Format format, const FuzzOp& op);
// "reserve_fuzz v1, 2 QPs, seed 0, 14 ops (1 unknown record skipped)".
std::string DescribeProgram(const Program& p);

// Argument decoders of version 1, shared by its formats (docs/fuzz-format.md).
// `last` for kern_reserve_flow from a selector and a raw value: half the
// selectors give 0..33, the rest edges, small negatives or the raw int.
int32_t DecodeLast(uint8_t sel, uint32_t raw);
// A 32-bit value weighted to the 20-bit generation edges.
uint32_t DecodeGeneration(uint8_t sel, uint32_t raw);
// The edge values DecodeLast's selector 4 and DecodeGeneration's selector 1
// pick from (raw % 8).
inline constexpr int32_t kLastEdges[8] = {-1, INT32_MIN, INT32_MAX, 32, 31, 0, 64, INT32_MIN + 1};
inline constexpr uint32_t kGenerationEdges[8] = {0,       1,        0xFFFFD,    0xFFFFE,
                                                 0xFFFFF, 0x100000, 0xFFFFFFFE, 0xFFFFFFFF};
// The selector of the narrowest class that holds `last`: 0 (raw % 34) for
// 0..33, 4 for the other edges, else 6 (the raw int). For building programs.
uint8_t SelectorForLast(int32_t last);

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_INPUT_FORMAT_H_
