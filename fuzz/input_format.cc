// fuzz/input_format.cc: the decoder table and what goes around it (see
// input_format.h): the header checks, Decode/DecodeAs/Encode, the op
// descriptions. The records of each version are in fuzz/format_v<N>.cc.
#include "fuzz/input_format.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "common/strings.h"
#include "fuzz/format_v1.h"
#include "fuzz/sched_fuzz_format.h"
#include "program/op_table.h"

namespace flowcheck {
namespace fuzz {
namespace {

// THE decoder table: every (format, version) this build reads. An entry is
// never changed once released, nor removed while its target can run it; a new version is a new line (and
// its own format_v<N>.cc), so old inputs keep their meaning.
constexpr FormatCodec kCodecs[] = {
    {Format::kReserve, 1, v1::kReserveHeader, v1::kReserveRecord, v1::DecodeReserve,
     v1::EncodeReserve},
    {Format::kFlow, 1, v1::kFlowHeader, v1::kFlowRecord, v1::DecodeFlow, v1::EncodeFlow},
    {Format::kPure, 1, v1::kPureHeader, v1::kPureRecord, v1::DecodePure, v1::EncodePure},
    // 'S' version 1 (flow records, an executor of its own) is no longer
    // decoded: its programs are not the engine's (fuzz/sched_fuzz_format.h).
    {Format::kSched, 2, sched_v2::kHeader, sched_v2::kRecord, sched_v2::Decode, sched_v2::Encode},
};

constexpr Format kFormats[] = {Format::kReserve, Format::kFlow, Format::kPure, Format::kSched};

bool IsFormat(uint8_t b) {
  for (Format f : kFormats) {
    if (b == static_cast<uint8_t>(f)) return true;
  }
  return false;
}

const FormatCodec& Latest(Format f) {
  const FormatCodec* latest = nullptr;
  for (const FormatCodec& c : kCodecs) {
    if (c.format == f && (latest == nullptr || c.version > latest->version)) latest = &c;
  }
  return *latest;  // every Format has an entry (kFormats are the table's)
}

void Reset(const FormatCodec& c, Program* p) {
  p->format = c.format;
  p->version = c.version;
  p->ops.clear();
  p->unknown_skipped = p->trailing_bytes = p->capped_records = 0;
  p->shape = SchedShape{};
  p->thread_ops.clear();
  p->schedule.clear();
}

// "sel 0x04, qp 0, arg -1, arg2 0": every field, for Encode's errors.
std::string Fields(const FuzzOp& op) {
  return flowcheck::StrFormat("code %u, sel 0x%02x, qp %d, arg %" PRId64 ", arg2 %" PRId64, op.code,
                              op.sel, op.qp, op.arg, op.arg2);
}

}  // namespace

const char* TargetName(Format f) {
  switch (f) {
    case Format::kReserve:
      return "reserve_fuzz";
    case Format::kFlow:
      return "flow_fuzz";
    case Format::kPure:
      return "pure_fuzz";
    case Format::kSched:
      return "sched_fuzz";
  }
  return "?";
}

bool FormatForTarget(const std::string& name, Format* out) {
  for (Format f : kFormats) {
    const std::string t = TargetName(f);
    if (name == t || name == t + "_fuzzer" || name + "_fuzz" == t) {
      *out = f;
      return true;
    }
  }
  return false;
}

const OpSpec* OpsOf(Format f, int* count) {
  switch (f) {
    case Format::kReserve:
      *count = kReserveOpCount;
      return kReserveOps;
    case Format::kFlow:
      *count = kFlowOpCount;
      return kFlowOps;
    case Format::kPure:
      *count = kPureOpCount;
      return kPureOps;
    case Format::kSched:
      *count = kSchedOpCount;
      return kSchedOps;
  }
  *count = 0;
  return nullptr;
}

const FormatCodec* FindCodec(uint8_t format_byte, uint8_t version) {
  for (const FormatCodec& c : kCodecs) {
    if (static_cast<uint8_t>(c.format) == format_byte && c.version == version) return &c;
  }
  return nullptr;
}

uint8_t LatestVersion(Format f) { return Latest(f).version; }

size_t MaxUsefulInputBytes() {
  size_t most = 0;
  for (const FormatCodec& c : kCodecs) {
    most = std::max(most, c.header_size + kMaxOps * c.record_size);
  }
  return most;
}

bool DecodeAs(Format format, const uint8_t* data, size_t size, Program* out) {
  if (size < 2 || data[0] != static_cast<uint8_t>(format)) return false;
  const FormatCodec* c = FindCodec(data[0], data[1]);
  if (c == nullptr || size < c->header_size) return false;
  Reset(*c, out);
  c->decode(data, size, out);
  return true;
}

DecodeResult DecodePrefix(const uint8_t* data, size_t size, uint64_t total_size) {
  if (size > total_size || size < std::min<uint64_t>(total_size, MaxUsefulInputBytes())) {
    std::fprintf(stderr, "DecodePrefix: %zu of %llu bytes read, fewer than the decoder needs\n",
                 size, static_cast<unsigned long long>(total_size));
    std::abort();
  }
  DecodeResult r;
  if (total_size == 0) {
    r.status = DecodeStatus::kEmpty;
    r.error = "the input is empty (0 bytes): not a flowcheck fuzz input";
    return r;
  }
  if (!IsFormat(data[0])) {
    r.status = DecodeStatus::kForeign;
    r.error = flowcheck::StrFormat(
        "not a flowcheck fuzz input: the first byte is 0x%02x, expected 'R' (reserve_fuzz), "
        "'F' (flow_fuzz), 'P' (pure_fuzz) or 'S' (sched_fuzz)",
        data[0]);
    return r;
  }
  const Format f = static_cast<Format>(data[0]);
  // The version byte is needed to know the header's size; without it, the
  // newest version's header is what is missing.
  const FormatCodec* c = total_size >= 2 ? FindCodec(data[0], data[1]) : &Latest(f);
  if (c == nullptr && f == Format::kSched && data[1] == 1) {
    r.status = DecodeStatus::kUnknownVersion;
    r.error =
        "sched_fuzz input of format version 1: no longer run (its threads ran flow_fuzz "
        "records on an executor of their own; version 2 holds programs of the one engine, "
        "docs/fuzz-format.md): reproduce it with a flowcheck before the change, or rewrite its "
        "ops as a version 2 program";
    return r;
  }
  if (c == nullptr) {
    r.status = DecodeStatus::kUnknownVersion;
    r.error = flowcheck::StrFormat(
        "%s input of format version %u: this build knows versions up to %u (a newer flowcheck "
        "wrote it, or it is not a flowcheck input)",
        TargetName(f), data[1], LatestVersion(f));
    return r;
  }
  if (total_size < c->header_size) {
    r.status = DecodeStatus::kTruncated;
    r.error =
        flowcheck::StrFormat("truncated %s input: %" PRIu64 " byte(s), its header alone takes %zu",
                             TargetName(f), total_size, c->header_size);
    return r;
  }
  Reset(*c, &r.program);
  c->decode(data, total_size, &r.program);
  r.status = DecodeStatus::kOk;
  return r;
}

DecodeResult Decode(const uint8_t* data, size_t size) { return DecodePrefix(data, size, size); }

EncodeResult Encode(const Program& p) {
  EncodeResult e;
  const uint8_t version = p.version != 0 ? p.version : LatestVersion(p.format);
  const FormatCodec* c = FindCodec(static_cast<uint8_t>(p.format), version);
  if (c == nullptr) {
    e.error = flowcheck::StrFormat("%s has no version %u", TargetName(p.format), version);
    return e;
  }
  if (p.ops.size() > kMaxOps) {
    e.error = flowcheck::StrFormat("%zu ops: a program holds at most %zu", p.ops.size(), kMaxOps);
    return e;
  }
  int count = 0;
  OpsOf(p.format, &count);
  for (size_t i = 0; i < p.ops.size(); ++i) {
    if (p.ops[i].code >= count) {
      e.error = flowcheck::StrFormat("op #%zu (%s): not an op of %s", i, Fields(p.ops[i]).c_str(),
                                     TargetName(p.format));
      return e;
    }
  }
  Program versioned = p;
  versioned.version = version;
  c->encode(versioned, &e.bytes);
  // The check that makes Encode trustworthy: the bytes decode to p.
  const DecodeResult back = Decode(e.bytes.data(), e.bytes.size());
  if (!back.ok() || back.program.num_qps != p.num_qps || back.program.seed != p.seed) {
    e.error = flowcheck::StrFormat("the %s v%u header cannot hold %d QPs and seed %" PRIu64,
                                   TargetName(p.format), version, p.num_qps, p.seed);
  } else if (back.program.thread_ops != p.thread_ops || back.program.schedule != p.schedule ||
             !(back.program.shape == p.shape)) {
    e.error = flowcheck::StrFormat(
        "the %s v%u header cannot hold this scenario, %zu threads of these op counts and %zu "
        "scheduling bytes",
        TargetName(p.format), version, p.thread_ops.size(), p.schedule.size());
  } else {
    for (size_t i = 0; i < p.ops.size() && e.ok(); ++i) {
      const FuzzOp& want = p.ops[i];
      const FuzzOp& got = back.program.ops[i];
      if (got != want) {
        e.error = flowcheck::StrFormat(
            "op #%zu %s (%s) does not fit a %s v%u record: it would decode as %s (%s)", i,
            DescribeOp(p.format, want).c_str(), Fields(want).c_str(), TargetName(p.format), version,
            DescribeOp(p.format, got).c_str(), Fields(got).c_str());
      }
    }
  }
  if (!e.ok()) e.bytes.clear();
  return e;
}

std::string DescribeOp(Format format, const FuzzOp& op) {
  int count = 0;
  const OpSpec* ops = OpsOf(format, &count);
  if (op.code >= count) return flowcheck::StrFormat("op %d", op.code);
  const char* name = ops[op.code].name;
  switch (ops[op.code].args) {
    case Args::kListed:  // "setup@1", "bare_reserve@0.3": the engine's own text
      return program::FormatOps({program::ListedOp{
          static_cast<program::ListedOpKind>(op.code), op.qp, static_cast<int>(op.arg)}});
    case Args::kNone:
      return flowcheck::StrFormat("%s()", name);
    case Args::kQp:
      return flowcheck::StrFormat("%s(qp#%d)", name, op.qp);
    case Args::kQpFlag:
      return flowcheck::StrFormat("%s(qp#%d, %s)", name, op.qp, op.arg ? "true" : "false");
    case Args::kQpResync:
      return flowcheck::StrFormat("%s(qp#%d, choice=%d, b=%" PRId64 ")", name, op.qp, op.sel % 8,
                                  op.arg);
    case Args::kLast:
      return flowcheck::StrFormat("%s(last=%" PRId64 ")", name, op.arg);
    case Args::kOwnedK:
      return flowcheck::StrFormat("%s(k=%" PRId64 ")", name, op.arg);
    case Args::kIndex:
      return flowcheck::StrFormat("%s(idx=%" PRId64 ")", name, op.arg);
    case Args::kGeneration:
    case Args::kMaskPsn:
      return flowcheck::StrFormat("%s(0x%" PRIx64 ")", name, op.arg);
    case Args::kRegister:
      return flowcheck::StrFormat("%s(gen=0x%" PRIx64 ", flow=%d)", name, op.arg, op.qp);
    case Args::kReserveOnMask:
      return flowcheck::StrFormat("%s(mask=0x%08" PRIx64 ", last=%" PRId64 ")", name, op.arg,
                                  op.arg2);
    case Args::kPosition:
      return flowcheck::StrFormat("%s(tid_enqueue=%" PRId64 ", dequeue=%" PRId64 ")", name, op.arg,
                                  op.arg2);
    case Args::kBitops:
      return flowcheck::StrFormat("%s(word=0x%016" PRIx64 ", nr=%" PRId64 ")", name,
                                  static_cast<uint64_t>(op.arg), op.arg2);
  }
  return flowcheck::StrFormat("op %d", op.code);
}

std::string DescribeProgram(const Program& p) {
  std::string s = flowcheck::StrFormat("%s v%u", TargetName(p.format), p.version);
  if (p.format == Format::kFlow || p.format == Format::kSched) {
    s += flowcheck::StrFormat(", %d QPs, seed %" PRIu64, p.num_qps, p.seed);
  }
  if (p.format == Format::kSched) {
    const SchedShape& h = p.shape;
    s += flowcheck::StrFormat(
        ", %d op thread(s)%s x %d QP(s), %d worker(s), %d free flow(s), %zu "
        "scheduling byte(s)",
        h.threads, h.irq ? " + rcv-irq" : "", h.qps_per_thread, h.workers, h.free_flows,
        p.schedule.size());
  }
  s += flowcheck::StrFormat(", %zu op(s)", p.ops.size());
  if (p.unknown_skipped)
    s += flowcheck::StrFormat(", %zu undefined record(s) skipped", p.unknown_skipped);
  if (p.trailing_bytes)
    s += flowcheck::StrFormat(", %zu trailing byte(s) ignored", p.trailing_bytes);
  if (p.capped_records) {
    s += flowcheck::StrFormat(", %zu record(s) beyond the %zu-op cap ignored", p.capped_records,
                              kMaxOps);
  }
  return s;
}

}  // namespace fuzz
}  // namespace flowcheck
