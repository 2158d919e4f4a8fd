// core/reference.cc: the property checks of reference.h. Each reads the
// model's value field by field against the bit table, without going
// through RegisterValue or NextGeneration: a property is a second statement
// of the rule, not the formula again.
#include "core/reference.h"

#include "common/strings.h"

namespace flowcheck {
namespace reference {

void CheckNextGeneration(uint32_t g, uint32_t next, std::vector<PropertyViolation>* out) {
  if (next == kReservedGeneration) {
    out->push_back({Property::kGenNext, flowcheck::StrFormat("next(0x%x) is RESERVED", g)});
  }
  if (next > kGenerationMask) {
    out->push_back({Property::kGenNext,
                    flowcheck::StrFormat("next(0x%x) = 0x%x is wider than 20 bits", g, next)});
  }
}

void CheckRegisterFields(uint32_t gen, uint64_t reg, std::vector<PropertyViolation>* out) {
  auto bit = [reg](int b) { return (reg >> b) & 1; };
  auto expect = [&](bool ok, const char* what) {
    if (!ok) {
      out->push_back({Property::kRegFields,
                      flowcheck::StrFormat("register 0x%016" PRIx64 " for generation 0x%x: %s", reg,
                                           gen, what)});
    }
  };
  expect((reg & kSequenceField) == 0, "sequence (bits 0..10) is not 0");
  expect(((reg >> kGenerationShift) & kGenerationMask) == gen,
         "generation (bits 11..30) is not the one written");
  expect(bit(31) == 0, "bit 31 is set");
  expect(bit(kFlowValidBit) == 1, "FLOW_VALID (bit 32) is clear");
  expect(bit(kHdrSuppEnBit) == (gen != kReservedGeneration ? 1u : 0u),
         "HDR_SUPP_EN (bit 33) must be set exactly when the generation is not RESERVED");
  expect(bit(kKeepAfterSeqErrBit) == 1 && bit(kKeepOnGenErrBit) == 1,
         "KEEP_AFTER_SEQ_ERR / KEEP_ON_GEN_ERR (34, 35) not set");
  expect(bit(kStatusSeqMismatchBit) == 1 && bit(kStatusGenMismatchBit) == 1,
         "the STATUS bits (37, 38) are not written as 1");
  expect(bit(36) == 0 && (reg >> 39) == 0, "bits 36 or 39..63 are set");
}

}  // namespace reference
}  // namespace flowcheck
