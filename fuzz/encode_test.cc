// Encode: every program Decode produces encodes back to bytes that decode to
// the same program, hand-written programs of every op round-trip, and a value
// its record cannot hold is an error naming the op, never wrong bytes.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fuzz/input_format.h"
#include "gmock/gmock-matchers.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace fuzz {
namespace {

using ::testing::HasSubstr;

void ExpectSameProgram(const Program& got, const Program& want) {
  EXPECT_EQ(got.format, want.format);
  EXPECT_EQ(got.num_qps, want.num_qps);
  EXPECT_EQ(got.seed, want.seed);
  ASSERT_EQ(got.ops.size(), want.ops.size());
  for (size_t i = 0; i < want.ops.size(); ++i) {
    EXPECT_EQ(got.ops[i], want.ops[i]) << "op #" << i << ": " << DescribeOp(got.format, got.ops[i])
                                       << " vs " << DescribeOp(want.format, want.ops[i]);
  }
}

Program Decoded(const std::vector<uint8_t>& b) {
  const DecodeResult d = Decode(b.data(), b.size());
  EXPECT_TRUE(d.ok()) << d.error;
  return d.program;
}

// Random bodies after a valid header, every format: Decode, Encode, Decode
// again gives the same program; encoding that again gives the same bytes
// (one canonical form), with nothing dropped.
TEST(Encode, EveryDecodedProgramRoundTrips) {
  std::mt19937_64 rng(20240611);
  size_t ops = 0;
  for (int i = 0; i < 6000; ++i) {
    const Format f = i % 3 == 0 ? Format::kReserve : (i % 3 == 1 ? Format::kFlow : Format::kPure);
    std::vector<uint8_t> b(5 + rng() % 700);
    for (uint8_t& x : b) x = static_cast<uint8_t>(rng());
    b[0] = static_cast<uint8_t>(f);
    b[1] = LatestVersion(f);
    const Program p = Decoded(b);
    const EncodeResult e = Encode(p);
    ASSERT_TRUE(e.ok()) << "input #" << i << ": " << e.error;
    const Program back = Decoded(e.bytes);
    ExpectSameProgram(back, p);
    EXPECT_EQ(back.unknown_skipped + back.trailing_bytes + back.capped_records, 0u);
    EXPECT_EQ(Encode(back).bytes, e.bytes);
    ops += p.ops.size();
  }
  EXPECT_GT(ops, 100000u);  // the test really encoded ops
}

Program Make(Format f, int num_qps, uint64_t seed, std::vector<FuzzOp> ops) {
  Program p;
  p.format = f;
  p.num_qps = num_qps;
  p.seed = seed;
  p.ops = std::move(ops);
  return p;
}

// Programs written by hand, as the seeds are: each op, with values at the
// edges of its argument classes, decodes back to itself.
TEST(Encode, HandWrittenProgramsOfEveryOpRoundTrip) {
  const std::vector<Program> programs = {
      Make(Format::kReserve, kReserveQps, 0,
           {MakeOp(ReserveOp::kReserve, SelectorForLast(33), 0, 33),
            MakeOp(ReserveOp::kReserve, SelectorForLast(INT32_MIN), 0, INT32_MIN),
            MakeOp(ReserveOp::kReserve, SelectorForLast(-987654), 0, -987654),
            MakeOp(ReserveOp::kReserve, 5, 0, -34),  // the small-negatives class
            MakeOp(ReserveOp::kReleaseOwned, 0, 0, 255),
            MakeOp(ReserveOp::kReleaseIndex, 0, 0, -128), MakeOp(ReserveOp::kQpSetup, 0, 1, 0),
            MakeOp(ReserveOp::kQpClear, 0, 0, 0), MakeOp(ReserveOp::kFill, 0, 0, 0),
            MakeOp(ReserveOp::kReleaseAll, 0, 0, 0), MakeOp(ReserveOp::kRunWork, 0, 0, 0)}),
      Make(Format::kFlow, kMaxFlowQps, 0xFFFF,
           {MakeOp(FlowOp::kSetup, 0, 7, 0), MakeOp(FlowOp::kClear, 0, 6, 0),
            MakeOp(FlowOp::kFlush, 0, 5, 0), MakeOp(FlowOp::kRarrWait, 0, 4, 0),
            MakeOp(FlowOp::kRarrGrant, 0, 3, 0), MakeOp(FlowOp::kRarrRelease, 0, 2, 0),
            MakeOp(FlowOp::kSetWantsFlow, 0, 1, 1), MakeOp(FlowOp::kResync, 0xFF, 0, 200),
            MakeOp(FlowOp::kClearResync, 0, 7, 0), MakeOp(FlowOp::kRunWork, 0, 0, 0),
            MakeOp(FlowOp::kRunAllWork, 0, 1, 0), MakeOp(FlowOp::kReserve, 4, 0, INT32_MAX),
            MakeOp(FlowOp::kReserve, 6, 0, 255), MakeOp(FlowOp::kReleaseOwned, 0, 0, 9)}),
      Make(Format::kPure, 0, 0,
           {MakeOp(PureOp::kGeneration, 1, 0, 0xFFFFFFFE),
            MakeOp(PureOp::kGeneration, 2, 0, 0xFFFF0), MakeOp(PureOp::kRegister, 3, 31, 0xFFFFF),
            MakeOp(PureOp::kRegister, 1, 0, 0xFFFFD),
            MakeOp(PureOp::kReserveMask, 0x80 | 4, 0, ~(1u << 17), INT32_MAX),
            MakeOp(PureOp::kReserveMask, 0xC0 | 5, 0, 0xAB, -34),
            MakeOp(PureOp::kPosition, 0x07, 0, 0xFFF00000u, 0xFFF00000u + 128),
            MakeOp(PureOp::kPosition, 0x02, 0, 0xFFF00005u, 3),
            MakeOp(PureOp::kMaskPsn, 0x11, 0, 0x80000000u),
            MakeOp(PureOp::kBitops, 0x80 | 63, 0, static_cast<int64_t>(~(1ull << 63)), 63),
            MakeOp(PureOp::kBitops, 0xC0 | 1, 0, 0x123456789, 1)}),
  };
  for (const Program& p : programs) {
    const EncodeResult e = Encode(p);
    ASSERT_TRUE(e.ok()) << TargetName(p.format) << ": " << e.error;
    ExpectSameProgram(Decoded(e.bytes), p);
  }
}

TEST(Encode, WhatARecordCannotHoldIsAnErrorNamingTheOp) {
  struct Case {
    Program p;
    const char* message;
  } cases[] = {
      // A flow record's `b` is one byte: 1000 needs the raw-int class of 'R'.
      {Make(Format::kFlow, 1, 0,
            {MakeOp(FlowOp::kRunWork, 0, 0, 0), MakeOp(FlowOp::kReserve, 6, 0, 1000)}),
       "op #1 reserve(last=1000) (code 11, sel 0x06, qp 0, arg 1000, arg2 0) does not fit a "
       "flow_fuzz v1 record: it would decode as reserve(last=232)"},
      // Selector 0 holds 0..33 only.
      {Make(Format::kReserve, kReserveQps, 0, {MakeOp(ReserveOp::kReserve, 0, 0, -1)}),
       "op #0 reserve(last=-1)"},
      // Selector 2 of a generation: 0xFFFFF - (raw % 16) only.
      {Make(Format::kPure, 0, 0, {MakeOp(PureOp::kGeneration, 2, 0, 5)}), "op #0 generation(0x5)"},
      {Make(Format::kFlow, 1, 0, {MakeOp(FlowOp::kSetup, 0, 1, 0)}), "op #0 setup_hw_flow(qp#1)"},
      {Make(Format::kFlow, 9, 0, {}), "the flow_fuzz v1 header cannot hold 9 QPs and seed 0"},
      {Make(Format::kFlow, 1, 0x10000, {}), "cannot hold 1 QPs and seed 65536"},
      {Make(Format::kReserve, 3, 0, {}), "cannot hold 3 QPs"},
      {Make(Format::kFlow, 1, 0, {MakeOp(13, 0, 0, 0)}), "op #0 (code 13, sel 0x00"},
      {Make(Format::kPure, 0, 0,
            std::vector<FuzzOp>(kMaxOps + 1, MakeOp(PureOp::kMaskPsn, 0, 0, 1))),
       "513 ops: a program holds at most 512"},
  };
  for (const Case& c : cases) {
    const EncodeResult e = Encode(c.p);
    EXPECT_FALSE(e.ok()) << c.message;
    EXPECT_TRUE(e.bytes.empty());
    EXPECT_THAT(e.error, HasSubstr(c.message));
  }
  Program v7 = Make(Format::kPure, 0, 0, {});
  v7.version = 7;
  EXPECT_THAT(Encode(v7).error, HasSubstr("pure_fuzz has no version 7"));
}

}  // namespace
}  // namespace fuzz
}  // namespace flowcheck
