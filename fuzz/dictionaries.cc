// fuzz/dictionaries.cc: DictionaryText (see seeds.h). The op records come
// from the op lists (fuzz/op_table.h) through Encode, so a dictionary never
// spells an opcode or a record layout itself.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/strings.h"
#include "fuzz/seeds.h"

namespace flowcheck {
namespace fuzz {
namespace {

// A record with interesting arguments, named "<op name>_<suffix>".
struct Example {
  const char* suffix;
  FuzzOp op;
};

std::vector<Example> Examples(Format f) {
  switch (f) {
    case Format::kReserve: {
      const ReserveOp reserve = ReserveOp::kReserve;
      return {
          {"32", MakeOp(reserve, 0, 0, 32)},
          {"33", MakeOp(reserve, 0, 0, 33)},
          {"edge_minus1", MakeOp(reserve, 4, 0, -1)},
          {"raw_minus1", MakeOp(reserve, 6, 0, -1)},
          {"raw_int_min", MakeOp(reserve, 6, 0, INT32_MIN)},
          {"raw_int_max", MakeOp(reserve, 6, 0, INT32_MAX)},
          {"qp1", MakeOp(ReserveOp::kQpClear, 0, 1, 0)},
      };
    }
    case Format::kFlow: {
      const FlowOp resync = FlowOp::kResync;
      return {
          {"true", MakeOp(FlowOp::kSetWantsFlow, 0, 0, 1)},
          {"reserved", MakeOp(resync, 3, 0, 0)},  // the PSN choices of docs/fuzz-format.md
          {"fffffe", MakeOp(resync, 4, 0, 0)},
      };
    }
    case Format::kPure:
    case Format::kSched:  // its own text: SchedDictionaryText
      return {};
  }
  return {};
}

// 32-bit values (little-endian) worth splicing into a record's raw fields.
std::vector<std::pair<const char*, uint32_t>> Values(Format f) {
  switch (f) {
    case Format::kReserve:
      return {{"u32_32", 32}, {"u32_31", 31}};
    case Format::kFlow:
      return {};
    case Format::kPure:
      return {{"gen_fffff", 0xFFFFF},  {"gen_ffffe", 0xFFFFE},   {"gen_100000", 0x100000},
              {"u32_max", 0xFFFFFFFF}, {"u32_sign", 0x80000000}, {"u32_32", 32},
              {"psn_mask", 0x7FFFFFFF}};
    case Format::kSched:
      return {};
  }
  return {};
}

// The bytes as a libFuzzer dictionary string: letters and digits as they
// are, every other byte as \xNN.
std::string Quoted(const std::vector<uint8_t>& bytes) {
  std::string s = "\"";
  for (uint8_t b : bytes) {
    const bool plain = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9');
    s += plain ? std::string(1, static_cast<char>(b)) : flowcheck::StrFormat("\\x%02x", b);
  }
  return s + "\"";
}

// The encoded bytes of a program of `ops` with the format's default header.
std::vector<uint8_t> Encoded(Format f, int num_qps, std::vector<FuzzOp> ops) {
  Program p;
  p.format = f;
  p.num_qps = num_qps;
  p.ops = std::move(ops);
  const EncodeResult e = Encode(p);
  if (!e.ok()) {
    std::fprintf(stderr, "%s dictionary: %s\n", TargetName(f), e.error.c_str());
    std::abort();
  }
  return e.bytes;
}

}  // namespace

std::string DictionaryText(Format f) {
  if (f == Format::kSched) return SchedDictionaryText();
  const FormatCodec* codec = FindCodec(static_cast<uint8_t>(f), LatestVersion(f));
  const int qps = f == Format::kReserve ? kReserveQps : (f == Format::kFlow ? kMaxFlowQps : 0);
  const size_t header = codec->header_size;
  auto record = [&](const FuzzOp& op) {
    const std::vector<uint8_t> b = Encoded(f, qps, {op});
    return Quoted(std::vector<uint8_t>(b.begin() + header, b.end()));
  };
  std::string s = flowcheck::StrFormat(
      "# %s: written by `bazel run //fuzz:make_seeds` from fuzz/op_table.h and\n"
      "# fuzz/dictionaries.cc (do not edit). Records: docs/fuzz-format.md.\n",
      TargetName(f));
  const std::vector<uint8_t> empty = Encoded(f, qps, {});
  s += flowcheck::StrFormat("header=%s\n",
                            Quoted({empty[0], empty[1]}).c_str());  // format and version
  if (header > 2) s += flowcheck::StrFormat("header_%dqps=%s\n", qps, Quoted(empty).c_str());
  int count = 0;
  const OpSpec* ops = OpsOf(f, &count);
  for (int code = 0; code < count; ++code) {
    s += flowcheck::StrFormat("%s=%s\n", ops[code].name, record(MakeOp(code, 0, 0, 0)).c_str());
  }
  for (const Example& e : Examples(f)) {
    s += flowcheck::StrFormat("%s_%s=%s\n", ops[e.op.code].name, e.suffix, record(e.op).c_str());
  }
  for (const auto& [name, v] : Values(f)) {
    s += flowcheck::StrFormat("%s=%s\n", name,
                              Quoted({static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8),
                                      static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 24)})
                                  .c_str());
  }
  return s;
}

}  // namespace fuzz
}  // namespace flowcheck
