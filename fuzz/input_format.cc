// fuzz/input_format.cc: see input_format.h; the byte tables are in
// docs/fuzz-format.md. Version 1 of each format is frozen: never change what
// a byte means here, add a version instead.
#include "fuzz/input_format.h"

#include <climits>

#include "absl/strings/str_format.h"

namespace flowcheck {
namespace fuzz {
namespace {

uint32_t LoadLe32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

size_t HeaderSize(Format f) {
  switch (f) {
    case Format::kReserve:
      return kReserveHeaderV1;
    case Format::kFlow:
      return kFlowHeaderV1;
    case Format::kPure:
      return kPureHeaderV1;
  }
  return 0;
}

bool IsFormat(uint8_t b) {
  return b == static_cast<uint8_t>(Format::kReserve) || b == static_cast<uint8_t>(Format::kFlow) ||
         b == static_cast<uint8_t>(Format::kPure);
}

// Walks the fixed-size records after `header` bytes, calling add(record) for
// each defined opcode (< defined), counting what is dropped.
template <typename AddFn>
void ForEachRecord(const uint8_t* data, size_t size, size_t header, size_t record, int defined,
                   Program* p, AddFn add) {
  const size_t body = size - header;
  size_t records = body / record;
  p->trailing_bytes = body % record;
  if (records > kMaxOps) {
    p->capped_records = records - kMaxOps;
    records = kMaxOps;
  }
  p->ops.reserve(records);  // one allocation per input, not log2(records)
  const uint8_t* r = data + header;
  for (size_t i = 0; i < records; ++i, r += record) {
    const uint8_t code = r[0] & 0x0F;
    if (code >= defined) {
      ++p->unknown_skipped;
      continue;
    }
    FuzzOp op;
    op.code = code;
    add(r, &op);
    p->ops.push_back(op);
  }
}

// 'R' 0x01: see ReserveOp. Record: op, sel, raw (u32 LE).
void DecodeReserveV1(const uint8_t* data, size_t size, Program* p) {
  p->num_qps = kReserveQps;
  p->seed = 0;
  ForEachRecord(data, size, kReserveHeaderV1, kReserveRecordV1, kReserveOpCount, p,
                [](const uint8_t* r, FuzzOp* op) {
                  const uint8_t sel = r[1];
                  const uint32_t raw = LoadLe32(r + 2);
                  op->sel = sel;
                  switch (static_cast<ReserveOp>(op->code)) {
                    case ReserveOp::kReserve:
                      op->arg = DecodeLast(sel, raw);
                      break;
                    case ReserveOp::kReleaseOwned:
                      op->arg = sel;
                      break;
                    case ReserveOp::kReleaseIndex:
                      op->arg = static_cast<int8_t>(sel);
                      break;
                    case ReserveOp::kQpSetup:
                    case ReserveOp::kQpClear:
                      op->qp = sel % kReserveQps;
                      break;
                    default:
                      break;
                  }
                });
}

// 'F' 0x01, num_qps byte, seed (u16 LE). Record: op, qp, a, b.
void DecodeFlowV1(const uint8_t* data, size_t size, Program* p) {
  p->num_qps = data[2] % kMaxFlowQps + 1;
  p->seed = static_cast<uint64_t>(data[3]) | static_cast<uint64_t>(data[4]) << 8;
  const int n = p->num_qps;
  ForEachRecord(data, size, kFlowHeaderV1, kFlowRecordV1, kFlowOpCount, p,
                [n](const uint8_t* r, FuzzOp* op) {
                  op->qp = r[1] % n;
                  const uint8_t a = r[2], b = r[3];
                  switch (static_cast<FlowOp>(op->code)) {
                    case FlowOp::kSetWantsFlow:
                      op->arg = a & 1;
                      break;
                    case FlowOp::kResync:
                      op->sel = a;
                      op->arg = b;
                      break;
                    case FlowOp::kReserve:
                      op->sel = a;
                      op->arg = DecodeLast(a, b);
                      break;
                    case FlowOp::kReleaseOwned:
                      op->arg = a;
                      break;
                    default:
                      break;
                  }
                });
}

// 'P' 0x01. Record: op, sel, raw1 (u32 LE), raw2 (u32 LE).
void DecodePureV1(const uint8_t* data, size_t size, Program* p) {
  p->num_qps = 0;
  p->seed = 0;
  ForEachRecord(
      data, size, kPureHeaderV1, kPureRecordV1, kPureOpCount, p, [](const uint8_t* r, FuzzOp* op) {
        const uint8_t sel = r[1];
        const uint32_t raw1 = LoadLe32(r + 2), raw2 = LoadLe32(r + 6);
        op->sel = sel;
        switch (static_cast<PureOp>(op->code)) {
          case PureOp::kGeneration:
            op->arg = DecodeGeneration(sel, raw1);
            break;
          case PureOp::kRegister:
            op->arg = DecodeGeneration(sel, raw1) & 0xFFFFF;  // callers pass 20-bit values
            op->qp = static_cast<int>(raw2 % 32);
            break;
          case PureOp::kReserveMask: {
            uint32_t mask = raw1;
            switch (sel >> 6) {
              case 1:
                mask = 0xFFFFFFFFu;
                break;  // full: -EAGAIN
              case 2:
                mask = ~(1u << (raw1 & 31));
                break;  // exactly one free
              case 3:
                mask = raw1 & 0xFF;
                break;  // sparse, low
              default:
                break;
            }
            op->arg = mask;
            op->arg2 = DecodeLast(sel & 7, raw2);
            break;
          }
          case PureOp::kPosition: {
            const uint32_t enq = DecodeGeneration(static_cast<uint8_t>(sel & 1), raw1) |
                                 ((sel & 2) ? 0xFFF00000u : 0);  // near the u32 wrap
            op->arg = enq;
            op->arg2 =
                (sel & 4) ? static_cast<uint32_t>(enq - static_cast<int8_t>(raw2 & 0xFF)) : raw2;
            break;
          }
          case PureOp::kMaskPsn:
            op->arg = raw1;
            break;
          case PureOp::kBitops: {
            uint64_t word = static_cast<uint64_t>(raw2) << 32 | raw1;
            const int nr = sel & 63;
            if ((sel >> 6) == 1) word = ~0ull;
            if ((sel >> 6) == 2) word = ~(1ull << nr);
            op->arg = static_cast<int64_t>(word);
            op->arg2 = nr;
            break;
          }
        }
      });
}

}  // namespace

int32_t DecodeLast(uint8_t sel, uint32_t raw) {
  static constexpr int32_t kEdges[8] = {-1, INT_MIN, INT_MAX, 32, 31, 0, 64, INT_MIN + 1};
  switch (sel & 7) {
    case 0:
    case 1:
    case 2:
    case 3:
      return static_cast<int32_t>(raw % 34);  // every flow, 32, 33
    case 4:
      return kEdges[raw % 8];
    case 5:
      return -static_cast<int32_t>(raw % 34) - 1;  // -1 .. -34
    default:
      return static_cast<int32_t>(raw);  // the whole range
  }
}

uint32_t DecodeGeneration(uint8_t sel, uint32_t raw) {
  static constexpr uint32_t kEdges[8] = {0,       1,        0xFFFFD,    0xFFFFE,
                                         0xFFFFF, 0x100000, 0xFFFFFFFE, 0xFFFFFFFF};
  switch (sel & 3) {
    case 0:
      return raw;
    case 1:
      return kEdges[raw % 8];
    case 2:
      return 0xFFFFF - raw % 16;  // just below RESERVED
    default:
      return raw & 0xFFFFF;
  }
}

const char* TargetName(Format f) {
  switch (f) {
    case Format::kReserve:
      return "reserve_fuzz";
    case Format::kFlow:
      return "flow_fuzz";
    case Format::kPure:
      return "pure_fuzz";
  }
  return "?";
}

bool FormatForTarget(const std::string& name, Format* out) {
  for (Format f : {Format::kReserve, Format::kFlow, Format::kPure}) {
    const std::string t = TargetName(f);
    if (name == t || name == t + "_fuzzer" || name + "_fuzz" == t) {
      *out = f;
      return true;
    }
  }
  return false;
}

bool DecodeAs(Format format, const uint8_t* data, size_t size, Program* out) {
  if (size < HeaderSize(format) || data[0] != static_cast<uint8_t>(format) ||
      data[1] != kLatestVersion) {
    return false;
  }
  out->format = format;
  out->version = data[1];
  out->ops.clear();
  out->unknown_skipped = out->trailing_bytes = out->capped_records = 0;
  switch (format) {
    case Format::kReserve:
      DecodeReserveV1(data, size, out);
      break;
    case Format::kFlow:
      DecodeFlowV1(data, size, out);
      break;
    case Format::kPure:
      DecodePureV1(data, size, out);
      break;
  }
  return true;
}

DecodeResult Decode(const uint8_t* data, size_t size) {
  DecodeResult r;
  if (size == 0) {
    r.status = DecodeStatus::kEmpty;
    r.error = "the input is empty (0 bytes): not a flowcheck fuzz input";
    return r;
  }
  if (!IsFormat(data[0])) {
    r.status = DecodeStatus::kForeign;
    r.error = absl::StrFormat(
        "not a flowcheck fuzz input: the first byte is 0x%02x, expected 'R' (reserve_fuzz), "
        "'F' (flow_fuzz) or 'P' (pure_fuzz)",
        data[0]);
    return r;
  }
  const Format f = static_cast<Format>(data[0]);
  if (size < HeaderSize(f)) {
    r.status = DecodeStatus::kTruncated;
    r.error = absl::StrFormat("truncated %s input: %u byte(s), its header alone takes %u",
                              TargetName(f), size, HeaderSize(f));
    return r;
  }
  if (data[1] == 0 || data[1] > kLatestVersion) {
    r.status = DecodeStatus::kUnknownVersion;
    r.error = absl::StrFormat(
        "%s input of format version %u: this build knows versions 1..%u (a newer flowcheck "
        "wrote it, or it is not a flowcheck input)",
        TargetName(f), data[1], kLatestVersion);
    return r;
  }
  DecodeAs(f, data, size, &r.program);
  r.status = DecodeStatus::kOk;
  return r;
}

std::string DescribeOp(Format format, const FuzzOp& op) {
  switch (format) {
    case Format::kReserve:
      switch (static_cast<ReserveOp>(op.code)) {
        case ReserveOp::kReserve:
          return absl::StrFormat("reserve(last=%d)", op.arg);
        case ReserveOp::kReleaseOwned:
          return absl::StrFormat("release_owned(k=%d)", op.arg);
        case ReserveOp::kReleaseIndex:
          return absl::StrFormat("release_index(idx=%d)", op.arg);
        case ReserveOp::kQpSetup:
          return absl::StrFormat("qp_setup(qp#%d)", op.qp);
        case ReserveOp::kQpClear:
          return absl::StrFormat("qp_clear(qp#%d)", op.qp);
        case ReserveOp::kFill:
          return "fill()";
        case ReserveOp::kReleaseAll:
          return "release_all()";
        case ReserveOp::kRunWork:
          return "run_work()";
      }
      break;
    case Format::kFlow:
      switch (static_cast<FlowOp>(op.code)) {
        case FlowOp::kSetup:
          return absl::StrFormat("setup_hw_flow(qp#%d)", op.qp);
        case FlowOp::kClear:
          return absl::StrFormat("clear_hw_flow(qp#%d)", op.qp);
        case FlowOp::kFlush:
          return absl::StrFormat("flush_wait(qp#%d)", op.qp);
        case FlowOp::kRarrWait:
          return absl::StrFormat("rarr_wait(qp#%d)", op.qp);
        case FlowOp::kRarrGrant:
          return absl::StrFormat("rarr_grant(qp#%d)", op.qp);
        case FlowOp::kRarrRelease:
          return absl::StrFormat("rarr_release(qp#%d)", op.qp);
        case FlowOp::kSetWantsFlow:
          return absl::StrFormat("set_wants_flow(qp#%d, %s)", op.qp, op.arg ? "true" : "false");
        case FlowOp::kResync:
          return absl::StrFormat("resync(qp#%d, choice=%d, b=%d)", op.qp, op.sel % 8, op.arg);
        case FlowOp::kClearResync:
          return absl::StrFormat("clear_resync(qp#%d)", op.qp);
        case FlowOp::kRunWork:
          return "run_work()";
        case FlowOp::kRunAllWork:
          return "run_all_work()";
        case FlowOp::kReserve:
          return absl::StrFormat("reserve(last=%d)", op.arg);
        case FlowOp::kReleaseOwned:
          return absl::StrFormat("release_owned(k=%d)", op.arg);
      }
      break;
    case Format::kPure:
      switch (static_cast<PureOp>(op.code)) {
        case PureOp::kGeneration:
          return absl::StrFormat("generation(0x%x)", op.arg);
        case PureOp::kRegister:
          return absl::StrFormat("register(gen=0x%x, flow=%d)", op.arg, op.qp);
        case PureOp::kReserveMask:
          return absl::StrFormat("reserve_on_mask(mask=0x%08x, last=%d)", op.arg, op.arg2);
        case PureOp::kPosition:
          return absl::StrFormat("position_in_queue(tid_enqueue=%u, dequeue=%u)", op.arg, op.arg2);
        case PureOp::kMaskPsn:
          return absl::StrFormat("mask_psn(0x%x)", op.arg);
        case PureOp::kBitops:
          return absl::StrFormat("bitops(word=0x%016x, nr=%d)", static_cast<uint64_t>(op.arg),
                                 op.arg2);
      }
      break;
  }
  return absl::StrFormat("op %d", op.code);
}

std::string DescribeProgram(const Program& p) {
  std::string s = absl::StrFormat("%s v%u", TargetName(p.format), p.version);
  if (p.format == Format::kFlow) s += absl::StrFormat(", %d QPs, seed %u", p.num_qps, p.seed);
  s += absl::StrFormat(", %u op(s)", p.ops.size());
  if (p.unknown_skipped)
    s += absl::StrFormat(", %u undefined record(s) skipped", p.unknown_skipped);
  if (p.trailing_bytes) s += absl::StrFormat(", %u trailing byte(s) ignored", p.trailing_bytes);
  if (p.capped_records) {
    s += absl::StrFormat(", %u record(s) beyond the %u-op cap ignored", p.capped_records, kMaxOps);
  }
  return s;
}

}  // namespace fuzz
}  // namespace flowcheck
