// fuzz/seeds.cc: the seed programs, and the files they and the dictionaries
// become (see seeds.h).
#include "fuzz/seeds.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "common/strings.h"

namespace flowcheck {
namespace fuzz {
namespace {

using Ops = std::vector<FuzzOp>;

Ops operator+(Ops a, const Ops& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// --- 'R' reserve_fuzz ---
FuzzOp Reserve(int32_t last) { return MakeOp(ReserveOp::kReserve, SelectorForLast(last), 0, last); }
FuzzOp R(ReserveOp op, int64_t arg = 0) { return MakeOp(op, 0, 0, arg); }
FuzzOp RQp(ReserveOp op, int qp) { return MakeOp(op, 0, qp, 0); }

Seed ReserveSeed(const char* name, Ops ops) {
  Program p;
  p.format = Format::kReserve;
  p.num_qps = kReserveQps;
  p.ops = std::move(ops);
  return {name, std::move(p)};
}

// --- 'F' flow_fuzz ---
FuzzOp F(FlowOp op, int qp = 0, int64_t arg = 0) { return MakeOp(op, 0, qp, arg); }
FuzzOp FReserve(int32_t last) { return MakeOp(FlowOp::kReserve, SelectorForLast(last), 0, last); }
FuzzOp Resync(int qp, uint8_t choice, int b) { return MakeOp(FlowOp::kResync, choice, qp, b); }

Seed FlowSeed(const char* name, int num_qps, uint64_t seed, Ops ops) {
  Program p;
  p.format = Format::kFlow;
  p.num_qps = num_qps;
  p.seed = seed;
  p.ops = std::move(ops);
  return {name, std::move(p)};
}

// --- 'P' pure_fuzz: the selector picks the class of each value ---
FuzzOp P(PureOp op, uint8_t sel, int64_t arg, int64_t arg2 = 0) {
  return MakeOp(op, sel, 0, arg, arg2);
}
FuzzOp Register(uint8_t sel, uint32_t gen, int flow) {
  return MakeOp(PureOp::kRegister, sel, flow, gen);
}

Seed PureSeed(const char* name, Ops ops) {
  Program p;
  p.format = Format::kPure;
  p.ops = std::move(ops);
  return {name, std::move(p)};
}

template <typename Fn>
Ops Each(int n, Fn fn) {
  Ops ops;
  for (int i = 0; i < n; ++i) {
    const Ops more = fn(i);
    ops.insert(ops.end(), more.begin(), more.end());
  }
  return ops;
}

std::vector<Seed> ReserveSeeds() {
  using O = ReserveOp;
  return {
      ReserveSeed("every-class-of-last",
                  {Reserve(5), Reserve(5), Reserve(32), Reserve(33), Reserve(-1),
                   Reserve(INT32_MIN), Reserve(INT32_MAX), Reserve(31), Reserve(0), Reserve(64),
                   Reserve(-34), Reserve(12345678), Reserve(-987654)}),
      ReserveSeed("full-bitmap-then-eagain",
                  {R(O::kFill), Reserve(3), Reserve(-1), R(O::kReleaseIndex, 7), Reserve(7),
                   R(O::kReleaseAll), Reserve(32)}),
      ReserveSeed("release-owned-and-not-owned",
                  {Reserve(4), Reserve(9), R(O::kReleaseIndex, 5), R(O::kReleaseIndex, -1),
                   R(O::kReleaseIndex, 40), R(O::kReleaseOwned, 1), R(O::kReleaseOwned, 0),
                   R(O::kReleaseOwned, 0), R(O::kReleaseIndex, 4)}),
      ReserveSeed("qps-and-harness-share-flows",
                  {RQp(O::kQpSetup, 0), R(O::kFill), RQp(O::kQpSetup, 1), R(O::kReleaseIndex, 0),
                   RQp(O::kQpClear, 0), R(O::kRunWork), R(O::kRunWork), R(O::kReleaseIndex, 0),
                   RQp(O::kQpClear, 1), R(O::kReleaseAll), RQp(O::kQpSetup, 0)}),
      ReserveSeed("preferred-flow-reuse", {Reserve(31), R(O::kReleaseOwned, 0), Reserve(31),
                                           Reserve(31), Reserve(30), R(O::kReleaseAll)}),
  };
}

std::vector<Seed> FlowSeeds() {
  using O = FlowOp;
  return {
      FlowSeed("fifo-handoff-chain", 4, 11,
               Each(31, [](int i) { return Ops{FReserve(i)}; }) + Ops{F(O::kSetup, 0)} +
                   Each(3,
                        [](int i) {
                          return Ops{F(O::kSetWantsFlow, i + 1, 1), F(O::kSetup, i + 1)};
                        }) +
                   Ops{F(O::kClear, 0), F(O::kRunAllWork), F(O::kReleaseOwned, 0, 4),
                       F(O::kSetup, 0), F(O::kClear, 1), F(O::kRunAllWork), F(O::kClear, 2),
                       F(O::kClear, 3), F(O::kRunAllWork)}),
      FlowSeed("r1-mischarged-dequeue", 3, 5,
               {F(O::kSetup, 0), F(O::kRarrWait, 0), F(O::kFlush, 0), F(O::kSetup, 1),
                F(O::kRarrWait, 1), F(O::kRarrGrant, 1), F(O::kRarrGrant, 0), F(O::kRarrRelease, 0),
                F(O::kRunAllWork), F(O::kClear, 0), F(O::kSetup, 0)}),
      FlowSeed(
          "rarr-queue-order", 3, 2,
          Each(3, [](int q) { return Ops{F(O::kSetup, q)}; }) +
              Ops{F(O::kRarrWait, 0), F(O::kRarrGrant, 1), F(O::kRarrGrant, 2), F(O::kRarrGrant, 0),
                  F(O::kRarrRelease, 0), F(O::kRunAllWork), F(O::kRarrGrant, 1),
                  F(O::kRarrRelease, 1), F(O::kRunAllWork), F(O::kRarrRelease, 2)}),
      FlowSeed("resync-every-choice", 2, 3,
               Each(8, [](int c) { return Ops{Resync(0, c, 7)}; }) +
                   Ops{F(O::kClearResync, 0), F(O::kSetup, 0)} +
                   Each(8,
                        [](int c) {
                          return Ops{Resync(0, c, 9), F(O::kClearResync, 0)};
                        }) +
                   Ops{F(O::kClear, 0), F(O::kSetup, 1), Resync(1, 0, 0)}),
      FlowSeed("resync-at-the-generation-wrap", 1, 9,
               {Resync(0, 4, 0), F(O::kClearResync, 0), F(O::kSetup, 0), Resync(0, 3, 0),
                F(O::kClearResync, 0), F(O::kClear, 0), F(O::kSetup, 0), F(O::kClear, 0)}),
      FlowSeed("eight-qps-wants-flow", 8, 1234,
               Ops(28, FReserve(-1)) +
                   Each(8,
                        [](int q) {
                          return Ops{F(O::kSetWantsFlow, q, 1), F(O::kSetup, q)};
                        }) +
                   Ops{F(O::kRunWork), F(O::kFlush, 5), F(O::kReleaseOwned, 0, 2), F(O::kClear, 0),
                       F(O::kRunAllWork), F(O::kClear, 1), F(O::kClear, 2), F(O::kRunAllWork),
                       F(O::kClear, 3), F(O::kClear, 4), F(O::kRunAllWork)}),
  };
}

std::vector<Seed> PureSeeds() {
  using O = PureOp;
  return {
      PureSeed("generation-edges",
               Each(8, [](int i) { return Ops{P(O::kGeneration, 1, kGenerationEdges[i])}; }) +
                   Each(4, [](int i) { return Ops{P(O::kGeneration, 2, 0xFFFFF - i)}; }) +
                   Ops{P(O::kGeneration, 0, 0x12345), P(O::kGeneration, 3, 0xFFFFF)}),
      PureSeed("register-encoding", Each(8,
                                         [](int i) {
                                           return Ops{Register(1, kGenerationEdges[i] & 0xFFFFF,
                                                               (i * 5) % 32)};
                                         }) +
                                        Ops{Register(0, 0x777, 31)}),
      PureSeed("reserve-on-any-mask",  // sel >> 6: the mask's class; sel & 7: last's
               {P(O::kReserveMask, 0x40, 0xFFFFFFFF, 0), P(O::kReserveMask, 0x80, ~(1u << 17), 3),
                P(O::kReserveMask, 0x84, ~1u, INT32_MIN), P(O::kReserveMask, 0xC0, 0xAB, 0),
                P(O::kReserveMask, 0x06, 0xFFFF, -1), P(O::kReserveMask, 0x00, 0x7FFFFFFF, 31),
                P(O::kReserveMask, 0x05, 5, -3)}),
      PureSeed("position-wraparound",  // sel & 2: near the u32 wrap; & 4: dequeue close by
               {P(O::kPosition, 0x07, 0xFFF00000, 0xFFF00002),
                P(O::kPosition, 0x06, 0xFFF00005, 0xFFF00002), P(O::kPosition, 0x00, 1, 0xFFFFFFFF),
                P(O::kPosition, 0x04, 0x80000000, 0x80000080)}),
      PureSeed("psn-and-bitops",  // bitops: sel >> 6 the word's class, sel & 63 nr
               {P(O::kMaskPsn, 0, 0xFFFFFFFF), P(O::kMaskPsn, 0, 0x80000000),
                P(O::kBitops, 0x40 | 5, static_cast<int64_t>(~0ull), 5),
                P(O::kBitops, 0x80 | 63, static_cast<int64_t>(~(1ull << 63)), 63),
                P(O::kBitops, 31, 0xFFFFFFFF, 31), P(O::kBitops, 32, 0x1FFFFFFFF, 32)}),
  };
}

}  // namespace

std::vector<Seed> Seeds() {
  std::vector<Seed> all;
  for (std::vector<Seed> (*seeds)() : {ReserveSeeds, FlowSeeds, PureSeeds, SchedSeeds}) {
    for (Seed& s : seeds()) all.push_back(std::move(s));
  }
  return all;
}

std::vector<GeneratedFile> GeneratedFiles() {
  std::vector<GeneratedFile> files;
  for (const Seed& s : Seeds()) {
    const EncodeResult e = Encode(s.program);
    if (!e.ok()) {
      std::fprintf(stderr, "seed %s of %s: %s\n", s.name.c_str(), TargetName(s.program.format),
                   e.error.c_str());
      std::abort();
    }
    files.push_back({flowcheck::StrFormat("fuzz/corpus/%s/seed-%s", TargetName(s.program.format),
                                          s.name.c_str()),
                     std::string(e.bytes.begin(), e.bytes.end())});
  }
  for (Format f : {Format::kReserve, Format::kFlow, Format::kPure, Format::kSched}) {
    files.push_back({flowcheck::StrFormat("fuzz/%s.dict", TargetName(f)), DictionaryText(f)});
  }
  return files;
}

std::vector<std::string> SeedDirs() {
  std::vector<std::string> dirs;
  for (Format f : {Format::kReserve, Format::kFlow, Format::kPure, Format::kSched}) {
    dirs.push_back(flowcheck::StrFormat("fuzz/corpus/%s", TargetName(f)));
  }
  return dirs;
}

}  // namespace fuzz
}  // namespace flowcheck
