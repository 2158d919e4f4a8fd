// fuzz/input_format.h: THE decoder of flowcheck's fuzz inputs. The fuzz
// targets, the reproduce command and the tests all decode through here, so a
// crash file means the same program to each of them.
//
//   DecodeResult d = Decode(data, size);          // format from the header
//   if (!d.ok()) { puts(d.error.c_str()); ... }   // empty, truncated, foreign
//   ExecResult r = Execute(d.program, options);   // fuzz/executor.h
//
// Byte layout (docs/fuzz-format.md has the full table): a header whose first
// byte names the format ('R' reserve, 'F' flow, 'P' pure) and whose second is
// the format's version, then fixed-size op records. Within a version the
// opcode mapping never changes; a changed meaning gets a new version and the
// old decoder stays, so committed crash files replay forever.
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

namespace flowcheck {
namespace fuzz {

enum class Format : uint8_t {
  kReserve = 'R',  // reserve_fuzz: kern_reserve_flow / release on one context
  kFlow = 'F',     // flow_fuzz: the flow layer with 1..8 QPs
  kPure = 'P',     // pure_fuzz: generation arithmetic, register encoding, ...
};

inline constexpr uint8_t kLatestVersion = 1;
inline constexpr size_t kMaxOps = 512;

// Sizes of version 1 (docs/fuzz-format.md).
inline constexpr size_t kReserveHeaderV1 = 2, kReserveRecordV1 = 6;
inline constexpr size_t kFlowHeaderV1 = 5, kFlowRecordV1 = 4;
inline constexpr size_t kPureHeaderV1 = 2, kPureRecordV1 = 10;

// "reserve_fuzz", "flow_fuzz", "pure_fuzz": the fuzz target of a format.
const char* TargetName(Format f);
// Parses a target name (with or without "_fuzz"/"_fuzzer"); false if unknown.
bool FormatForTarget(const std::string& name, Format* out);

// Opcodes of version 1, one enum per format; the value is the low nibble of
// the record's first byte (the high nibble is ignored in version 1).
enum class ReserveOp : uint8_t {
  kReserve = 0,       // kern_reserve_flow(last) under exp_lock; the harness owns the flow
  kReleaseOwned = 1,  // release the (arg % n)-th flow the harness owns; none: no call
  kReleaseIndex = 2,  // release flow `arg` if the harness owns it, else no call (checked)
  kQpSetup = 3,       // qp (0..1) takes a flow: hfi1_kern_setup_hw_flow
  kQpClear = 4,       // qp releases its flow: hfi1_kern_clear_hw_flow
  kFill = 5,          // reserve(last = -1) until -EAGAIN (at most 33 calls)
  kReleaseAll = 6,    // release every flow the harness owns, lowest first
  kRunWork = 7,       // run one pending work item (the QPs' wakeups)
};
inline constexpr int kReserveOpCount = 8;
inline constexpr int kReserveQps = 2;  // QPs of the reserve target's context

enum class FlowOp : uint8_t {
  kSetup = 0,          // caller_setup_hw_flow(qp)
  kClear = 1,          // caller_clear_hw_flow(qp)
  kFlush = 2,          // caller_flush_wait(qp)
  kRarrWait = 3,       // caller_rarr_wait(qp); qp without a flow: setup instead
  kRarrGrant = 4,      // caller_rarr_grant(qp); legalised, see executor.cc
  kRarrRelease = 5,    // caller_rarr_release(qp) if qp holds a grant, else no call
  kSetWantsFlow = 6,   // caller_set_wants_flow(qp, arg & 1)
  kResync = 7,         // caller_resync(qp, psn chosen by sel/arg from the state)
  kClearResync = 8,    // caller_clear_resync(qp)
  kRunWork = 9,        // one work item
  kRunAllWork = 10,    // work items until idle (at most 64)
  kReserve = 11,       // caller_reserve_flow(last) (a bare reservation)
  kReleaseOwned = 12,  // release the (arg % n)-th flow the harness owns
};
inline constexpr int kFlowOpCount = 13;
inline constexpr int kMaxFlowQps = 8;

enum class PureOp : uint8_t {
  kGeneration = 0,   // mask_generation, kern_flow_generation_next (arg = u32)
  kRegister = 1,     // kern_set_hw_flow + read_r_next_psn (arg = gen, qp = flow)
  kReserveMask = 2,  // kern_reserve_flow on flow_mask = arg, last = arg2
  kPosition = 3,     // position_in_queue(tid_enqueue = arg, dequeue = arg2)
  kMaskPsn = 4,      // mask_psn(arg)
  kBitops = 5,       // ffz, hweight_long, test_and_set_bit, clear_bit (word, nr)
};
inline constexpr int kPureOpCount = 6;

// One decoded op. `code` is a ReserveOp/FlowOp/PureOp value of the program's
// format; the meaning of the other fields depends on it (see the enums).
struct FuzzOp {
  uint8_t code = 0;
  uint8_t sel = 0;  // a selector byte (resync's psn choice)
  int qp = 0;       // already reduced modulo the program's QP count
  int64_t arg = 0;
  int64_t arg2 = 0;
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
};

enum class DecodeStatus {
  kOk,
  kEmpty,           // no bytes at all
  kForeign,         // first byte names no format
  kTruncated,       // shorter than its format's header
  kUnknownVersion,  // a version this build does not know
};

struct DecodeResult {
  DecodeStatus status = DecodeStatus::kEmpty;
  std::string error;  // a sentence for the user when !ok()
  Program program;
  bool ok() const { return status == DecodeStatus::kOk; }
};

// Detects the format from the header and decodes with that format's decoder.
DecodeResult Decode(const uint8_t* data, size_t size);

// The fuzz targets' fast path: decodes into *out (reused, no allocation once
// warm) only if the header names `format`; returns false otherwise.
bool DecodeAs(Format format, const uint8_t* data, size_t size, Program* out);

// The op as a readable line: "reserve(last=-1)", "rarr_grant(qp#2)", ...
std::string DescribeOp(Format format, const FuzzOp& op);
// "reserve_fuzz v1, 2 QPs, seed 0, 14 ops (1 unknown record skipped)".
std::string DescribeProgram(const Program& p);

// Argument decoders shared by the formats (documented in docs/fuzz-format.md).
// `last` for kern_reserve_flow from a selector and a raw value: half the
// selectors give 0..33, the rest edges, small negatives or the raw int.
int32_t DecodeLast(uint8_t sel, uint32_t raw);
// A 32-bit value weighted to the 20-bit generation edges.
uint32_t DecodeGeneration(uint8_t sel, uint32_t raw);

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_INPUT_FORMAT_H_
