// The decoder: every op kind of every format, the argument decoders' edge
// values, what is dropped (undefined opcodes, a partial record, records past
// the cap) and every unusable header.
#include "fuzz/input_format.h"

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock-matchers.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace fuzz {
namespace {

using Bytes = std::vector<uint8_t>;
using ::testing::HasSubstr;

DecodeResult DecodeBytes(const Bytes& b) { return Decode(b.data(), b.size()); }

void Append(Bytes* b, std::initializer_list<int> v) {
  for (int x : v) b->push_back(static_cast<uint8_t>(x));
}

void AppendU32(Bytes* b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

Bytes ReserveRecord(int op, int sel, uint32_t raw) {
  Bytes b;
  Append(&b, {op, sel});
  AppendU32(&b, raw);
  return b;
}

Bytes ReserveInput(const std::vector<Bytes>& records) {
  Bytes b = {'R', 1};
  for (const Bytes& r : records) b.insert(b.end(), r.begin(), r.end());
  return b;
}

TEST(DecodeLast, EveryClassOfSelector) {
  for (int sel = 0; sel < 4; ++sel) {
    EXPECT_EQ(DecodeLast(sel, 0), 0);
    EXPECT_EQ(DecodeLast(sel, 32), 32);
    EXPECT_EQ(DecodeLast(sel, 33), 33);
    EXPECT_EQ(DecodeLast(sel, 34), 0);  // raw % 34
  }
  const int32_t edges[8] = {-1, INT_MIN, INT_MAX, 32, 31, 0, 64, INT_MIN + 1};
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(DecodeLast(4, i), edges[i]);
  EXPECT_EQ(DecodeLast(5, 0), -1);
  EXPECT_EQ(DecodeLast(5, 33), -34);
  EXPECT_EQ(DecodeLast(6, 0xFFFFFFFFu), -1);
  EXPECT_EQ(DecodeLast(7, 0x80000000u), INT_MIN);
  EXPECT_EQ(DecodeLast(6 | 0xF8, 12345), 12345);  // only the low 3 bits select
}

TEST(DecodeGeneration, EdgesNearReserved) {
  EXPECT_EQ(DecodeGeneration(0, 0xDEADBEEF), 0xDEADBEEFu);
  const uint32_t edges[8] = {0, 1, 0xFFFFD, 0xFFFFE, 0xFFFFF, 0x100000, 0xFFFFFFFE, 0xFFFFFFFF};
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(DecodeGeneration(1, i), edges[i]);
  EXPECT_EQ(DecodeGeneration(2, 0), 0xFFFFFu);
  EXPECT_EQ(DecodeGeneration(2, 15), 0xFFFF0u);
  EXPECT_EQ(DecodeGeneration(3, 0xFFFFFFFF), 0xFFFFFu);
}

// Decodes `b` and checks the program's ops read `want`, in order.
void ExpectOps(const Bytes& b, const std::vector<std::string>& want) {
  DecodeResult d = DecodeBytes(b);
  ASSERT_TRUE(d.ok()) << d.error;
  ASSERT_EQ(d.program.ops.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(DescribeOp(d.program.format, d.program.ops[i]), want[i]) << "op #" << i;
  }
}

TEST(ReserveFormat, EveryOp) {
  const Bytes b = ReserveInput({
      ReserveRecord(0, 6, static_cast<uint32_t>(-7)),  // the raw int
      ReserveRecord(1, 200, 0),
      ReserveRecord(2, 0xFE, 0),  // int8
      ReserveRecord(3, 5, 0),     // 5 % 2
      ReserveRecord(4, 2, 0),
      ReserveRecord(5, 0, 0),
      ReserveRecord(6, 0, 0),
      ReserveRecord(7, 0, 0),
  });
  ExpectOps(b, {"reserve(last=-7)", "release_owned(k=200)", "release_index(idx=-2)",
                "qp_setup(qp#1)", "qp_clear(qp#0)", "fill()", "release_all()", "run_work()"});
  EXPECT_EQ(DecodeBytes(b).program.num_qps, kReserveQps);
}

TEST(ReserveFormat, UndefinedOpcodesHighNibbleAndPartialRecord) {
  Bytes b = ReserveInput({ReserveRecord(0x08, 0, 0), ReserveRecord(0x0F, 0, 0),
                          ReserveRecord(0xA0, 0, 3)});  // high nibble ignored: reserve(3)
  Append(&b, {0, 0, 1});                                // 3 of 6 bytes
  DecodeResult d = DecodeBytes(b);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.program.unknown_skipped, 2u);
  EXPECT_EQ(d.program.trailing_bytes, 3u);
  ASSERT_EQ(d.program.ops.size(), 1u);
  EXPECT_EQ(DescribeOp(Format::kReserve, d.program.ops[0]), "reserve(last=3)");
  EXPECT_THAT(DescribeProgram(d.program),
              HasSubstr("1 op(s), 2 undefined record(s) skipped, 3 trailing byte(s) ignored"));
}

TEST(ReserveFormat, CappedAtMaxOps) {
  std::vector<Bytes> recs(kMaxOps + 10, ReserveRecord(7, 0, 0));
  DecodeResult d = DecodeBytes(ReserveInput(recs));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.program.ops.size(), kMaxOps);
  EXPECT_EQ(d.program.capped_records, 10u);
}

TEST(FlowFormat, HeaderAndEveryOp) {
  Bytes b = {'F', 1, 10, 0x34, 0x12};  // 10 % 8 + 1 = 3 QPs, seed 0x1234
  for (int op = 0; op < kFlowOpCount; ++op) Append(&b, {op, 7, 5, 9});
  ExpectOps(b, {"setup_hw_flow(qp#1)", "clear_hw_flow(qp#1)", "flush_wait(qp#1)", "rarr_wait(qp#1)",
                "rarr_grant(qp#1)", "rarr_release(qp#1)", "set_wants_flow(qp#1, true)",
                "resync(qp#1, choice=5, b=9)", "clear_resync(qp#1)", "run_work()", "run_all_work()",
                "reserve(last=-10)", "release_owned(k=5)"});
  const Program p = DecodeBytes(b).program;
  EXPECT_EQ(p.num_qps, 3);
  EXPECT_EQ(p.seed, 0x1234u);
  EXPECT_THAT(DescribeProgram(p), HasSubstr("flow_fuzz v1, 3 QPs, seed 4660, 13 op(s)"));
}

TEST(PureFormat, EveryOp) {
  Bytes b = {'P', 1};
  auto rec = [&b](int op, int sel, uint32_t a, uint32_t c) {
    Append(&b, {op, sel});
    AppendU32(&b, a);
    AppendU32(&b, c);
  };
  rec(0, 1, 3, 0);          // generation(edge 3 = 0xFFFFE)
  rec(1, 0, 0x123456, 33);  // register(gen 0x23456, flow 1)
  rec(2, 0x40, 0, 0x21);    // full mask, last = 33
  rec(2, 0x80, 5, 0);       // all but flow 5
  rec(3, 0x04, 10, 0xFF);   // dequeue = enqueue + 1
  rec(4, 0, 0xFFFFFFFF, 0);
  rec(5, 0x80 | 7, 0, 0);  // word ~(1 << 7)
  ExpectOps(
      b, {"generation(0xffffe)", "register(gen=0x23456, flow=1)",
          "reserve_on_mask(mask=0xffffffff, last=33)", "reserve_on_mask(mask=0xffffffdf, last=0)",
          "position_in_queue(tid_enqueue=10, dequeue=11)", "mask_psn(0xffffffff)",
          "bitops(word=0xffffffffffffff7f, nr=7)"});
}

TEST(Header, UnusableInputsSaySoClearly) {
  struct Case {
    Bytes bytes;
    DecodeStatus status;
    const char* message;
  } cases[] = {
      {{}, DecodeStatus::kEmpty, "empty"},
      {{'R'}, DecodeStatus::kTruncated, "truncated reserve_fuzz input: 1 byte(s)"},
      {{'F', 1, 0, 0}, DecodeStatus::kTruncated, "truncated flow_fuzz input: 4 byte(s)"},
      {{'P', 2}, DecodeStatus::kUnknownVersion, "version 2"},
      {{'R', 0}, DecodeStatus::kUnknownVersion, "version 0"},
      {{0x7F, 'E', 'L', 'F'}, DecodeStatus::kForeign, "first byte is 0x7f"},
      {{'r', 1}, DecodeStatus::kForeign, "not a flowcheck fuzz input"},
  };
  for (const Case& c : cases) {
    DecodeResult d = DecodeBytes(c.bytes);
    EXPECT_EQ(d.status, c.status) << c.message;
    EXPECT_FALSE(d.ok());
    EXPECT_THAT(d.error, HasSubstr(c.message));
  }
  // A header alone is a valid, empty program.
  EXPECT_TRUE(DecodeBytes({'R', 1}).ok());
  EXPECT_TRUE(DecodeBytes({'F', 1, 0, 0, 0}).ok());
  EXPECT_TRUE(DecodeBytes({'P', 1}).ok());
}

TEST(DecodeAs, OnlyItsOwnFormat) {
  const Bytes r = {'R', 1, 0, 0, 5, 0, 0, 0};
  Program p;
  EXPECT_TRUE(DecodeAs(Format::kReserve, r.data(), r.size(), &p));
  EXPECT_EQ(p.ops.size(), 1u);
  EXPECT_FALSE(DecodeAs(Format::kFlow, r.data(), r.size(), &p));
  EXPECT_FALSE(DecodeAs(Format::kPure, r.data(), r.size(), &p));
  const Bytes v2 = {'R', 2};
  EXPECT_FALSE(DecodeAs(Format::kReserve, v2.data(), v2.size(), &p));
}

// The decoder table decides: DecodeAs and Decode accept exactly the
// (format, version) pairs that have an entry, the latest and every older one.
TEST(FormatTable, DecodersAcceptExactlyTheTablesVersions) {
  for (Format f : {Format::kReserve, Format::kFlow, Format::kPure}) {
    const uint8_t latest = LatestVersion(f);
    ASSERT_NE(FindCodec(static_cast<uint8_t>(f), latest), nullptr) << TargetName(f);
    for (int v = 0; v < 256; ++v) {
      const FormatCodec* c = FindCodec(static_cast<uint8_t>(f), static_cast<uint8_t>(v));
      Bytes b(16, 0);  // longer than any header
      b[0] = static_cast<uint8_t>(f);
      b[1] = static_cast<uint8_t>(v);
      Program p;
      EXPECT_EQ(DecodeAs(f, b.data(), b.size(), &p), c != nullptr) << TargetName(f) << " v" << v;
      const DecodeResult d = DecodeBytes(b);
      EXPECT_EQ(d.ok(), c != nullptr) << TargetName(f) << " v" << v << ": " << d.error;
      if (c == nullptr) continue;
      EXPECT_LE(v, latest);
      EXPECT_EQ(d.program.version, v);
      EXPECT_EQ(c->format, f);
    }
  }
  EXPECT_EQ(FindCodec('R', 0), nullptr);  // version 0 never existed
  EXPECT_EQ(FindCodec('X', 1), nullptr);
  EXPECT_EQ(MaxUsefulInputBytes(), 2 + kMaxOps * 10);  // 'P': the largest records
}

// A reader that stops at MaxUsefulInputBytes() decodes the same program as
// one that read everything, counts included.
TEST(DecodePrefix, ThePrefixAReaderNeedsGivesTheWholeProgram) {
  for (const Bytes& head : {Bytes{'R', 1}, Bytes{'F', 1, 3, 0, 0}, Bytes{'P', 1}}) {
    Bytes b = head;
    for (int i = 0; i < 6000; ++i) b.push_back(static_cast<uint8_t>(i * 7));
    const DecodeResult whole = DecodeBytes(b);
    const DecodeResult prefix = DecodePrefix(b.data(), MaxUsefulInputBytes(), b.size());
    ASSERT_TRUE(whole.ok() && prefix.ok());
    EXPECT_GT(whole.program.capped_records, 0u);
    EXPECT_EQ(prefix.program.ops, whole.program.ops);
    EXPECT_EQ(prefix.program.capped_records, whole.program.capped_records);
    EXPECT_EQ(prefix.program.trailing_bytes, whole.program.trailing_bytes);
    EXPECT_EQ(prefix.program.unknown_skipped, whole.program.unknown_skipped);
  }
}

TEST(DecodePrefixDeathTest, ReadingLessThanTheDecoderNeedsIsACallerBug) {
  const Bytes b(100, 'R');
  EXPECT_DEATH(DecodePrefix(b.data(), 10, 100000), "fewer than the decoder needs");
}

TEST(TargetNames, RoundTrip) {
  Format f;
  ASSERT_TRUE(FormatForTarget("flow_fuzz", &f));
  EXPECT_EQ(f, Format::kFlow);
  ASSERT_TRUE(FormatForTarget("reserve_fuzz_fuzzer", &f));
  EXPECT_EQ(f, Format::kReserve);
  ASSERT_TRUE(FormatForTarget("pure", &f));
  EXPECT_EQ(f, Format::kPure);
  EXPECT_FALSE(FormatForTarget("empty_fuzz", &f));
}

}  // namespace
}  // namespace fuzz
}  // namespace flowcheck
