// core/reference_test.cc: the reference formulas against the worked
// examples and literal register values, over every generation; and each
// property check firing on a value that breaks it, silent on the formulas'
// own results. No model here: the model is checked against these elsewhere.
#include "core/reference.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock-matchers.h"
#include "gmock/gmock-more-matchers.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace reference {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> Details(const std::vector<PropertyViolation>& v, Property p) {
  std::vector<std::string> out;
  for (const PropertyViolation& x : v) {
    EXPECT_EQ(x.property, p) << x.detail;
    out.push_back(x.detail);
  }
  return out;
}

TEST(Reference, NextGenerationWorkedExamples) {
  EXPECT_EQ(NextGeneration(5), 6u);
  EXPECT_EQ(NextGeneration(0xFFFFD), 0xFFFFEu);
  EXPECT_EQ(NextGeneration(0xFFFFE), 0u);  // skips RESERVED
  EXPECT_EQ(NextGeneration(0xFFFFF), 0u);
  EXPECT_EQ(NextGeneration(0x100000), 1u);  // wider inputs are masked first
  EXPECT_EQ(NextGeneration(0xFFFFFFFF), 0u);
  EXPECT_EQ(MaskGeneration(0xFFFFFFFF), kReservedGeneration);
}

TEST(Reference, NextGenerationVisitsEveryGenerationButReservedOnce) {
  std::vector<bool> seen(kGenerationMask + 1, false);
  uint32_t g = 0;
  for (uint32_t i = 0; i < kGenerationMask; ++i) {
    ASSERT_FALSE(seen[g]) << "0x" << std::hex << g << " visited twice";
    seen[g] = true;
    g = NextGeneration(g);
  }
  EXPECT_EQ(g, 0u);  // back at the start after 2^20 - 1 steps
  EXPECT_FALSE(seen[kReservedGeneration]);
}

TEST(Reference, GenerationBeforeAndResync) {
  EXPECT_EQ(GenerationBefore(5), 4u);
  EXPECT_EQ(GenerationBefore(0), kReservedGeneration);  // modulo 2^20, no skip
  EXPECT_EQ(ResyncGeneration((0x777u << 11) - 1), 0x777u);
  EXPECT_EQ(ResyncGeneration(0x7FFFFFFF), 0u);  // psn + 1 wraps to 0 in 31 bits
  EXPECT_EQ(MaskPsn(0xFFFFFFFF), 0x7FFFFFFFu);
  EXPECT_EQ(kMaxFlowPsn, 2047u);
}

TEST(Reference, RegisterValuesOfTheBitTable) {
  EXPECT_EQ(RegisterValue(0), 0x6F00000000ull);
  EXPECT_EQ(RegisterValue(0x123), 0x6F00000000ull | 0x123ull << 11);
  EXPECT_EQ(RegisterValue(0xFFFFE), 0x6F7FFFF000ull);
  EXPECT_EQ(RegisterValue(kReservedGeneration), 0x6D7FFFF800ull);  // released
}

TEST(Reference, PropertiesHoldForTheFormulasOwnResults) {
  std::vector<PropertyViolation> v;
  for (uint32_t g = 0; g <= kGenerationMask; ++g) {
    CheckNextGeneration(g, NextGeneration(g), &v);
    CheckRegisterFields(g, RegisterValue(g), &v);
  }
  EXPECT_THAT(v, IsEmpty()) << (v.empty() ? "" : v.front().detail);
}

TEST(Reference, GenNextFiresOnReservedAndOnWideResults) {
  std::vector<PropertyViolation> v;
  CheckNextGeneration(0xFFFFE, 0xFFFFF, &v);
  CheckNextGeneration(0xFFFFF, 0x100000, &v);
  EXPECT_THAT(Details(v, Property::kGenNext),
              ElementsAre("next(0xffffe) is RESERVED",
                          "next(0xfffff) = 0x100000 is wider than 20 bits"));
}

TEST(Reference, RegFieldsFiresOnEverySingleBitFlip) {
  for (uint32_t gen : {0u, 0x12345u, kReservedGeneration}) {
    for (int bit = 0; bit < 64; ++bit) {
      std::vector<PropertyViolation> v;
      CheckRegisterFields(gen, RegisterValue(gen) ^ (1ull << bit), &v);
      EXPECT_EQ(v.size(), 1u) << "gen 0x" << std::hex << gen << ", bit " << std::dec << bit;
    }
  }
  std::vector<PropertyViolation> v;
  CheckRegisterFields(kReservedGeneration, RegisterValue(kReservedGeneration) | 1ull << 33, &v);
  EXPECT_THAT(Details(v, Property::kRegFields),
              ElementsAre("register 0x0000006f7ffff800 for generation 0xfffff: HDR_SUPP_EN (bit "
                          "33) must be set exactly when the generation is not RESERVED"));
}

TEST(Reference, PropertyIds) {
  EXPECT_STREQ(IdOf(kPropertyIds, Property::kGenNext), "gen-next");
  EXPECT_STREQ(IdOf(kPropertyIds, Property::kRegFields), "reg-fields");
}

}  // namespace
}  // namespace reference
}  // namespace flowcheck
