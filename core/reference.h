// core/reference.h: the flow layer's formulas, each written once, from the
// hardware's bit table and the driver's definitions, and independently of
// the model: the generation arithmetic, the RcvTIDFlowTable register
// encoding, the PSN masks, the RESYNC generation.
//
//   reference::NextGeneration(0xFFFFE)       // 0: RESERVED is skipped
//   reference::RegisterValue(0x123)          // 0x6F00000000 | 0x123 << 11
//   reference::RegisterValue(kReservedGeneration)  // 0x6D7FFFF800, released
//
// The model (core/tid_rdma_flow.cc) computes the same values its own way, in
// the kernel's form; the checkers hold it to these: CheckInvariants (F2-F5),
// the oracle (core/oracle), the pure fuzz target. For that to mean anything
// the two must share nothing, so this library
//  * never calls or includes the model: its only dependency in core/ is
//    check_id.h (the build refuses an #include of a model header here), and
//  * is testonly, so the model (//core, not testonly) cannot depend on it.
//
// It also states the kernel's properties of two of these formulas (Property):
// checks a caller runs on what the MODEL returned, each with its own id,
// independent of the equality with the formula above. The pure fuzz target
// reports them; docs/core.md lists them.
//
// Everything here is a pure function: no state, no lock, any thread.
#ifndef FLOWCHECK_CORE_REFERENCE_H_
#define FLOWCHECK_CORE_REFERENCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/check_id.h"

namespace flowcheck {
namespace reference {

inline constexpr int kNumFlows = 32;  // hardware flows per receive context
inline constexpr int kNoFlow = 32;    // flow_state.index of a QP that owns none

// Generations are 20 bits wide; the all-ones value is RESERVED: never handed
// out by next(), it marks a released flow's register and "no generation".
inline constexpr uint32_t kGenerationMask = 0xFFFFF;
inline constexpr uint32_t kReservedGeneration = 0xFFFFF;

// PSNs are 31 bits: generation << 11 | 11-bit sequence.
inline constexpr uint32_t kPsnMask = 0x7FFFFFFF;
inline constexpr int kSequenceBits = 11;
inline constexpr uint32_t kMaxFlowPsn = (1u << kSequenceBits) - 1;  // 2047

// The RcvTIDFlowTable register, bit by bit.
inline constexpr uint64_t kSequenceField = (1ull << kSequenceBits) - 1;  // bits 0..10
inline constexpr int kGenerationShift = kSequenceBits;                    // bits 11..30
inline constexpr int kFlowValidBit = 32;
inline constexpr int kHdrSuppEnBit = 33;  // header suppression: off for RESERVED
inline constexpr int kKeepAfterSeqErrBit = 34;
inline constexpr int kKeepOnGenErrBit = 35;
inline constexpr int kStatusSeqMismatchBit = 37;  // both STATUS bits written as 1
inline constexpr int kStatusGenMismatchBit = 38;

constexpr uint32_t MaskGeneration(uint32_t g) { return g & kGenerationMask; }

// The generation after g: g + 1 modulo 2^20, skipping RESERVED (0xFFFFE -> 0).
constexpr uint32_t NextGeneration(uint32_t g) {
  const uint32_t next = MaskGeneration(g + 1);
  return next == kReservedGeneration ? 0 : next;
}

// g - 1 modulo 2^20 (no skip: RESYNC accepts the generation before the one
// it expects, whatever it is).
constexpr uint32_t GenerationBefore(uint32_t g) { return MaskGeneration(g + kGenerationMask); }

constexpr uint32_t MaskPsn(uint32_t v) { return v & kPsnMask; }

// The generation a RESYNC carrying `psn` asks for: that of psn + 1.
constexpr uint32_t ResyncGeneration(uint32_t psn) { return MaskPsn(psn + 1) >> kGenerationShift; }

// What kern_set_hw_flow(rcd, gen, idx) writes: sequence 0, the generation,
// VALID, KEEP_AFTER_SEQ_ERR, KEEP_ON_GEN_ERR, both STATUS bits, and
// HDR_SUPP_EN unless gen is RESERVED. Active: 0x6F00000000 | gen << 11;
// released (RESERVED): 0x6D7FFFF800.
constexpr uint64_t RegisterValue(uint32_t gen) {
  return static_cast<uint64_t>(gen) << kGenerationShift | 1ull << kFlowValidBit |
         1ull << kKeepAfterSeqErrBit | 1ull << kKeepOnGenErrBit | 1ull << kStatusSeqMismatchBit |
         1ull << kStatusGenMismatchBit |
         (gen != kReservedGeneration ? 1ull << kHdrSuppEnBit : 0);
}

// The kernel's properties of the model's pure functions, one id each.
enum class Property {
  kGenNext,    // on kern_flow_generation_next's result
  kRegFields,  // on the register kern_set_hw_flow wrote
  kCount,
};
inline constexpr CheckId<Property> kPropertyIds[] = {
    {Property::kGenNext, "gen-next",
     "kern_flow_generation_next never returns RESERVED and stays within 20 bits"},
    {Property::kRegFields, "reg-fields",
     "a flow register written by kern_set_hw_flow has every field of the bit table: sequence 0, "
     "the generation written, VALID, KEEP_AFTER_SEQ_ERR, KEEP_ON_GEN_ERR and both STATUS bits "
     "set, HDR_SUPP_EN exactly when the generation is not RESERVED, bits 31, 36 and 39-63 clear"},
};
static_assert(WellFormedIdTable(kPropertyIds), "one row per Property, distinct token ids");

struct PropertyViolation {
  Property property;
  std::string detail;  // "next(0xffffe) is RESERVED"
};

// Appends a violation for each property `next`, the model's
// kern_flow_generation_next(g), breaks.
void CheckNextGeneration(uint32_t g, uint32_t next, std::vector<PropertyViolation>* out);

// Appends a violation for each field of `reg`, the register the model wrote
// for generation `gen` (a 20-bit value), that the bit table does not allow.
void CheckRegisterFields(uint32_t gen, uint64_t reg, std::vector<PropertyViolation>* out);

}  // namespace reference
}  // namespace flowcheck

#endif  // FLOWCHECK_CORE_REFERENCE_H_
