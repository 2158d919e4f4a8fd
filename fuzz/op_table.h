// fuzz/op_table.h: THE list of flowcheck's fuzz ops, once per format.
// Everything that spells an op is derived from these lists: the op enums the
// executor switches on, the names traces and reproduce print, the decoder and
// the encoder (fuzz/input_format.h), the libFuzzer dictionaries and the seed
// corpora (fuzz/seeds.h). docs/fuzz-format.md describes the bytes.
//
// An entry is X(Enumerator, opcode, "name", Args):
//  * the enumerator's value is the op's opcode in version 1 of its format (the
//    low nibble of a record's first byte); a later version with other opcodes
//    maps its own bytes onto these same enumerators in its own decoder;
//  * "name" is what DescribeOp prints ("reserve(last=-1)") and what the
//    dictionaries call the op's record;
//  * Args says which FuzzOp fields the op uses, which is also how it is
//    printed; each version's record layout says where those fields live in
//    its bytes (fuzz/format_v1.cc).
// Opcodes are dense from 0 and in order, and each list fits its version-1
// record layout (both checked at compile time in fuzz/format_v1.cc); an
// opcode past the end of a list is "undefined": skipped.
#ifndef FLOWCHECK_FUZZ_OP_TABLE_H_
#define FLOWCHECK_FUZZ_OP_TABLE_H_

#include <cstdint>

#include "program/op_table.h"

namespace flowcheck {
namespace fuzz {

// The FuzzOp fields an op uses (FuzzOp in input_format.h) and how DescribeOp
// shows them. `sel` is a record's selector byte, kept where it selects the
// class of value an argument comes from (and, in 'P', always), so that Encode
// writes the record back in that class.
enum class Args : uint8_t {
  kNone,           // "name()"
  kQp,             // qp: "name(qp#2)"
  kQpFlag,         // qp, arg 0/1: "name(qp#2, true)"
  kQpResync,       // qp, sel (PSN choice, sel % 8), arg (b): "name(qp#2, choice=3, b=9)"
  kLast,           // sel, arg = kern_reserve_flow's `last`: "name(last=-1)"
  kOwnedK,         // arg = k, the k-th harness flow: "name(k=4)"
  kIndex,          // arg = a flow index, -128..127: "name(idx=-2)"
  kGeneration,     // sel, arg = a 32-bit value: "name(0xffffe)"
  kRegister,       // sel, arg = 20-bit generation, qp = flow: "name(gen=0x1, flow=3)"
  kReserveOnMask,  // sel, arg = flow_mask, arg2 = last: "name(mask=0x..., last=3)"
  kPosition,       // sel, arg = tid_enqueue, arg2 = dequeue: "name(tid_enqueue=1, dequeue=0)"
  kMaskPsn,        // sel (unused), arg = a 32-bit PSN: "name(0x7fffffff)"
  kBitops,         // sel, arg = a 64-bit word, arg2 = nr: "name(word=0x..., nr=5)"
  kListed,         // 'S': qp = A, arg = B, as the engine writes it: "setup@1", "segment@0.4"
};

// 'R', reserve_fuzz: kern_reserve_flow / release on one context with 2 QPs.
//   reserve        kern_reserve_flow(last) under exp_lock; the flow is the harness's
//   release_owned  release the (k % n)-th flow the harness owns; none owned: no call
//   release_index  release flow idx if the harness owns it, else a checked no-call
//   qp_setup/clear hfi1_kern_setup_hw_flow / hfi1_kern_clear_hw_flow for qp 0..1
//   fill           reserve(last = -1) until -EAGAIN (at most 33 calls)
//   release_all    release every flow the harness owns, lowest first
//   run_work       run one pending work item (the QPs' wakeups)
#define FLOWCHECK_FUZZ_RESERVE_OPS(X)           \
  X(kReserve, 0, "reserve", kLast)              \
  X(kReleaseOwned, 1, "release_owned", kOwnedK) \
  X(kReleaseIndex, 2, "release_index", kIndex)  \
  X(kQpSetup, 3, "qp_setup", kQp)               \
  X(kQpClear, 4, "qp_clear", kQp)               \
  X(kFill, 5, "fill", kNone)                    \
  X(kReleaseAll, 6, "release_all", kNone)       \
  X(kRunWork, 7, "run_work", kNone)

// 'F', flow_fuzz: the flow layer with 1..8 QPs, each op through core/callers.h
// (caller_<name>(qp)), legalised by fuzz/executor/legalise.cc; set_wants_flow
// passes arg, resync a PSN chosen from sel and b; run_work runs one work item,
// run_all_work until none is pending (at most 64); reserve and release_owned
// are bare reservations by the harness, as in 'R'.
#define FLOWCHECK_FUZZ_FLOW_OPS(X)               \
  X(kSetup, 0, "setup_hw_flow", kQp)             \
  X(kClear, 1, "clear_hw_flow", kQp)             \
  X(kFlush, 2, "flush_wait", kQp)                \
  X(kRarrWait, 3, "rarr_wait", kQp)              \
  X(kRarrGrant, 4, "rarr_grant", kQp)            \
  X(kRarrRelease, 5, "rarr_release", kQp)        \
  X(kSetWantsFlow, 6, "set_wants_flow", kQpFlag) \
  X(kResync, 7, "resync", kQpResync)             \
  X(kClearResync, 8, "clear_resync", kQp)        \
  X(kRunWork, 9, "run_work", kNone)              \
  X(kRunAllWork, 10, "run_all_work", kNone)      \
  X(kReserve, 11, "reserve", kLast)              \
  X(kReleaseOwned, 12, "release_owned", kOwnedK)

// 'P', pure_fuzz: core's pure functions (mask_generation and
// kern_flow_generation_next; kern_set_hw_flow and read_r_next_psn;
// kern_reserve_flow on any flow_mask; position_in_queue; mask_psn; ffz,
// hweight_long and the bit operations) against reference formulas.
#define FLOWCHECK_FUZZ_PURE_OPS(X)                      \
  X(kGeneration, 0, "generation", kGeneration)          \
  X(kRegister, 1, "register", kRegister)                \
  X(kReserveMask, 2, "reserve_on_mask", kReserveOnMask) \
  X(kPosition, 3, "position_in_queue", kPosition)       \
  X(kMaskPsn, 4, "mask_psn", kMaskPsn)                  \
  X(kBitops, 5, "bitops", kBitops)

// 'S', sched_fuzz: the engine's ops, THE op table of program/op_table.h (a
// record's op byte is its row); fuzz/sched_fuzz_format.h.

#define FLOWCHECK_FUZZ_OP_ENUMERATOR(e, code, name, args) e = code,
enum class ReserveOp : uint8_t { FLOWCHECK_FUZZ_RESERVE_OPS(FLOWCHECK_FUZZ_OP_ENUMERATOR) };
enum class FlowOp : uint8_t { FLOWCHECK_FUZZ_FLOW_OPS(FLOWCHECK_FUZZ_OP_ENUMERATOR) };
enum class PureOp : uint8_t { FLOWCHECK_FUZZ_PURE_OPS(FLOWCHECK_FUZZ_OP_ENUMERATOR) };
#undef FLOWCHECK_FUZZ_OP_ENUMERATOR

// One op of a list: what DescribeOp, the codecs and the dictionaries read.
struct OpSpec {
  uint8_t code;
  const char* name;
  Args args;
};

#define FLOWCHECK_FUZZ_OP_SPEC(e, code, name, args) OpSpec{code, name, Args::args},
inline constexpr OpSpec kReserveOps[] = {FLOWCHECK_FUZZ_RESERVE_OPS(FLOWCHECK_FUZZ_OP_SPEC)};
inline constexpr OpSpec kFlowOps[] = {FLOWCHECK_FUZZ_FLOW_OPS(FLOWCHECK_FUZZ_OP_SPEC)};
inline constexpr OpSpec kPureOps[] = {FLOWCHECK_FUZZ_PURE_OPS(FLOWCHECK_FUZZ_OP_SPEC)};
#undef FLOWCHECK_FUZZ_OP_SPEC
#define FLOWCHECK_FUZZ_SCHED_OP_SPEC(kind, name, ...) \
  OpSpec{static_cast<uint8_t>(program::kOp##kind), name, Args::kListed},
inline constexpr OpSpec kSchedOps[] = {FLOWCHECK_LISTED_OPS(FLOWCHECK_FUZZ_SCHED_OP_SPEC)};
#undef FLOWCHECK_FUZZ_SCHED_OP_SPEC

inline constexpr int kReserveOpCount = sizeof(kReserveOps) / sizeof(kReserveOps[0]);
inline constexpr int kFlowOpCount = sizeof(kFlowOps) / sizeof(kFlowOps[0]);
inline constexpr int kPureOpCount = sizeof(kPureOps) / sizeof(kPureOps[0]);
inline constexpr int kSchedOpCount = sizeof(kSchedOps) / sizeof(kSchedOps[0]);

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_OP_TABLE_H_
