// fuzz/format_v1.cc: version 1 of 'R', 'F' and 'P' (see format_v1.h; the
// byte tables are in docs/fuzz-format.md). Frozen: never change what a byte
// means here, add a version instead. Each format has one record layout;
// which fields of a record an op reads is its Args (fuzz/op_table.h), so the
// ops are not listed again here.
#include "fuzz/format_v1.h"

namespace flowcheck {
namespace fuzz {
namespace v1 {
namespace {

// Which Args each layout can carry (checked against the op lists below).
constexpr bool ReserveHolds(Args a) {
  return a == Args::kNone || a == Args::kQp || a == Args::kLast || a == Args::kOwnedK ||
         a == Args::kIndex;
}
constexpr bool FlowHolds(Args a) {
  return a == Args::kNone || a == Args::kQp || a == Args::kQpFlag || a == Args::kQpResync ||
         a == Args::kLast || a == Args::kOwnedK;
}
constexpr bool PureHolds(Args a) {
  return a == Args::kGeneration || a == Args::kRegister || a == Args::kReserveOnMask ||
         a == Args::kPosition || a == Args::kMaskPsn || a == Args::kBitops;
}
template <size_t N>
constexpr bool ListFits(const OpSpec (&ops)[N], bool (*holds)(Args)) {
  if (N > 16) return false;  // opcodes are a nibble
  for (size_t i = 0; i < N; ++i) {
    if (ops[i].code != i || !holds(ops[i].args)) return false;
  }
  return true;
}
static_assert(ListFits(kReserveOps, ReserveHolds), "reserve ops: dense opcodes, 'R' layout args");
static_assert(ListFits(kFlowOps, FlowHolds), "flow ops: dense opcodes, 'F' layout args");
static_assert(ListFits(kPureOps, PureHolds), "pure ops: dense opcodes, 'P' layout args");

uint32_t LoadLe32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

void StoreLe32(uint32_t v, uint8_t* p) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Walks the fixed-size records after `header` bytes of an input of `total`
// bytes, calling decode(spec, record, &op) for each defined opcode and
// counting what is dropped.
template <size_t N, typename DecodeFn>
void ForEachRecord(const uint8_t* data, uint64_t total, size_t header, size_t record,
                   const OpSpec (&ops)[N], Program* p, DecodeFn decode) {
  const uint64_t body = total - header;
  uint64_t records = body / record;
  p->trailing_bytes = body % record;
  if (records > kMaxOps) {
    p->capped_records = records - kMaxOps;
    records = kMaxOps;
  }
  p->ops.reserve(records);  // one allocation per input, not log2(records)
  const uint8_t* r = data + header;
  for (uint64_t i = 0; i < records; ++i, r += record) {
    const uint8_t code = r[0] & 0x0F;  // the high nibble is ignored
    if (code >= N) {
      ++p->unknown_skipped;
      continue;
    }
    FuzzOp op;
    op.code = code;
    decode(ops[code].args, r, &op);
    p->ops.push_back(op);
  }
}

// The raw value that DecodeLast(sel, raw) turns into `last`, if there is one
// (Encode checks by decoding).
uint32_t EncodeLast(uint8_t sel, int64_t last) {
  switch (sel & 7) {
    case 4:
      for (uint32_t i = 0; i < 8; ++i) {
        if (kLastEdges[i] == last) return i;
      }
      return 0;
    case 5:
      return static_cast<uint32_t>(-last - 1);
    default:  // 0..3: raw % 34; 6, 7: the raw int
      return static_cast<uint32_t>(last);
  }
}

// The raw value that DecodeGeneration(sel, raw) turns into `value`, if any.
uint32_t EncodeGeneration(uint8_t sel, uint32_t value) {
  switch (sel & 3) {
    case 1:
      for (uint32_t i = 0; i < 8; ++i) {
        if (kGenerationEdges[i] == value) return i;
      }
      return 0;
    case 2:
      return 0xFFFFF - value;
    default:
      return value;
  }
}

}  // namespace

// 'R' 0x01. Record: op, sel, raw (u32 LE). One context with kReserveQps QPs.
void DecodeReserve(const uint8_t* data, uint64_t total_size, Program* p) {
  p->num_qps = kReserveQps;
  p->seed = 0;
  ForEachRecord(data, total_size, kReserveHeader, kReserveRecord, kReserveOps, p,
                [](Args args, const uint8_t* r, FuzzOp* op) {
                  const uint8_t sel = r[1];
                  switch (args) {
                    case Args::kLast:
                      op->sel = sel;
                      op->arg = DecodeLast(sel, LoadLe32(r + 2));
                      break;
                    case Args::kOwnedK:
                      op->arg = sel;
                      break;
                    case Args::kIndex:
                      op->arg = static_cast<int8_t>(sel);
                      break;
                    case Args::kQp:
                      op->qp = sel % kReserveQps;
                      break;
                    default:
                      break;
                  }
                });
}

void EncodeReserve(const Program& p, std::vector<uint8_t>* out) {
  out->insert(out->end(), {static_cast<uint8_t>(Format::kReserve), p.version});
  for (const FuzzOp& op : p.ops) {
    uint8_t r[kReserveRecord] = {op.code};
    switch (kReserveOps[op.code].args) {
      case Args::kLast:
        r[1] = op.sel;
        StoreLe32(EncodeLast(op.sel, op.arg), r + 2);
        break;
      case Args::kOwnedK:
      case Args::kIndex:
        r[1] = static_cast<uint8_t>(op.arg);
        break;
      case Args::kQp:
        r[1] = static_cast<uint8_t>(op.qp);
        break;
      default:
        break;
    }
    out->insert(out->end(), r, r + kReserveRecord);
  }
}

// 'F' 0x01, num_qps byte (n % 8 + 1 QPs), seed (u16 LE). Record: op, qp, a, b.
void DecodeFlow(const uint8_t* data, uint64_t total_size, Program* p) {
  p->num_qps = data[2] % kMaxFlowQps + 1;
  p->seed = static_cast<uint64_t>(data[3]) | static_cast<uint64_t>(data[4]) << 8;
  const int n = p->num_qps;
  ForEachRecord(data, total_size, kFlowHeader, kFlowRecord, kFlowOps, p,
                [n](Args args, const uint8_t* r, FuzzOp* op) {
                  op->qp = r[1] % n;
                  const uint8_t a = r[2], b = r[3];
                  switch (args) {
                    case Args::kQpFlag:
                      op->arg = a & 1;
                      break;
                    case Args::kQpResync:
                      op->sel = a;
                      op->arg = b;
                      break;
                    case Args::kLast:
                      op->sel = a;
                      op->arg = DecodeLast(a, b);
                      break;
                    case Args::kOwnedK:
                      op->arg = a;
                      break;
                    default:
                      break;
                  }
                });
}

void EncodeFlow(const Program& p, std::vector<uint8_t>* out) {
  out->insert(out->end(),
              {static_cast<uint8_t>(Format::kFlow), p.version, static_cast<uint8_t>(p.num_qps - 1),
               static_cast<uint8_t>(p.seed), static_cast<uint8_t>(p.seed >> 8)});
  for (const FuzzOp& op : p.ops) {
    uint8_t r[kFlowRecord] = {op.code, static_cast<uint8_t>(op.qp)};
    switch (kFlowOps[op.code].args) {
      case Args::kQpFlag:
      case Args::kOwnedK:
        r[2] = static_cast<uint8_t>(op.arg);
        break;
      case Args::kQpResync:
        r[2] = op.sel;
        r[3] = static_cast<uint8_t>(op.arg);
        break;
      case Args::kLast:
        r[2] = op.sel;
        r[3] = static_cast<uint8_t>(EncodeLast(op.sel, op.arg));
        break;
      default:
        break;
    }
    out->insert(out->end(), r, r + kFlowRecord);
  }
}

// 'P' 0x01. Record: op, sel, raw1 (u32 LE), raw2 (u32 LE).
void DecodePure(const uint8_t* data, uint64_t total_size, Program* p) {
  p->num_qps = 0;
  p->seed = 0;
  ForEachRecord(
      data, total_size, kPureHeader, kPureRecord, kPureOps, p,
      [](Args args, const uint8_t* r, FuzzOp* op) {
        const uint8_t sel = r[1];
        const uint32_t raw1 = LoadLe32(r + 2), raw2 = LoadLe32(r + 6);
        op->sel = sel;
        switch (args) {
          case Args::kGeneration:
            op->arg = DecodeGeneration(sel, raw1);
            break;
          case Args::kRegister:
            op->arg = DecodeGeneration(sel, raw1) & 0xFFFFF;  // callers pass 20-bit values
            op->qp = static_cast<int>(raw2 % 32);
            break;
          case Args::kReserveOnMask: {
            uint32_t mask = raw1;
            switch (sel >> 6) {
              case 1:
                mask = 0xFFFFFFFFu;  // full: -EAGAIN
                break;
              case 2:
                mask = ~(1u << (raw1 & 31));  // exactly one free
                break;
              case 3:
                mask = raw1 & 0xFF;  // sparse, low
                break;
              default:
                break;
            }
            op->arg = mask;
            op->arg2 = DecodeLast(sel & 7, raw2);
            break;
          }
          case Args::kPosition: {
            const uint32_t enq = DecodeGeneration(static_cast<uint8_t>(sel & 1), raw1) |
                                 ((sel & 2) ? 0xFFF00000u : 0);  // near the u32 wrap
            op->arg = enq;
            op->arg2 =
                (sel & 4) ? static_cast<uint32_t>(enq - static_cast<int8_t>(raw2 & 0xFF)) : raw2;
            break;
          }
          case Args::kMaskPsn:
            op->arg = raw1;  // sel is kept, unused, so that Encode writes it back
            break;
          case Args::kBitops: {
            uint64_t word = static_cast<uint64_t>(raw2) << 32 | raw1;
            const int nr = sel & 63;
            if ((sel >> 6) == 1) word = ~0ull;
            if ((sel >> 6) == 2) word = ~(1ull << nr);
            op->arg = static_cast<int64_t>(word);
            op->arg2 = nr;
            break;
          }
          default:
            break;
        }
      });
}

void EncodePure(const Program& p, std::vector<uint8_t>* out) {
  out->insert(out->end(), {static_cast<uint8_t>(Format::kPure), p.version});
  for (const FuzzOp& op : p.ops) {
    const uint8_t sel = op.sel;
    const uint32_t arg = static_cast<uint32_t>(op.arg), arg2 = static_cast<uint32_t>(op.arg2);
    uint32_t raw1 = 0, raw2 = 0;
    switch (kPureOps[op.code].args) {
      case Args::kGeneration:
        raw1 = EncodeGeneration(sel, arg);
        break;
      case Args::kRegister:
        raw1 = EncodeGeneration(sel, arg);
        raw2 = static_cast<uint32_t>(op.qp);
        break;
      case Args::kReserveOnMask:
        if ((sel >> 6) == 2) {
          const uint32_t free_flows = ~arg;  // one bit: the flow raw1 names
          raw1 = free_flows != 0 ? static_cast<uint32_t>(__builtin_ctz(free_flows)) : 0;
        } else if ((sel >> 6) != 1) {
          raw1 = arg;
        }
        raw2 = EncodeLast(sel & 7, op.arg2);
        break;
      case Args::kPosition: {
        const uint32_t high = (sel & 2) ? 0xFFF00000u : 0;
        raw1 = EncodeGeneration(static_cast<uint8_t>(sel & 1), arg & ~high);
        raw2 = (sel & 4) ? static_cast<uint8_t>(arg - arg2) : arg2;
        break;
      }
      case Args::kMaskPsn:
        raw1 = arg;
        break;
      case Args::kBitops:
        if ((sel >> 6) == 0 || (sel >> 6) == 3) {
          raw1 = static_cast<uint32_t>(op.arg);
          raw2 = static_cast<uint32_t>(static_cast<uint64_t>(op.arg) >> 32);
        }
        break;
      default:
        break;
    }
    uint8_t r[kPureRecord] = {op.code, sel};
    StoreLe32(raw1, r + 2);
    StoreLe32(raw2, r + 6);
    out->insert(out->end(), r, r + kPureRecord);
  }
}

}  // namespace v1

int32_t DecodeLast(uint8_t sel, uint32_t raw) {
  switch (sel & 7) {
    case 0:
    case 1:
    case 2:
    case 3:
      return static_cast<int32_t>(raw % 34);  // every flow, 32, 33
    case 4:
      return kLastEdges[raw % 8];
    case 5:
      return -static_cast<int32_t>(raw % 34) - 1;  // -1 .. -34
    default:
      return static_cast<int32_t>(raw);  // the whole range
  }
}

uint32_t DecodeGeneration(uint8_t sel, uint32_t raw) {
  switch (sel & 3) {
    case 0:
      return raw;
    case 1:
      return kGenerationEdges[raw % 8];
    case 2:
      return 0xFFFFF - raw % 16;  // just below RESERVED
    default:
      return raw & 0xFFFFF;
  }
}

uint8_t SelectorForLast(int32_t last) {
  if (last >= 0 && last <= 33) return 0;
  for (int32_t edge : kLastEdges) {
    if (edge == last) return 4;
  }
  return 6;
}

}  // namespace fuzz
}  // namespace flowcheck
