// program/op_list.cc: see op_list.h.
#include "program/op_list.h"

#include "core/tid_rdma.h"
#include "program/rng.h"

namespace flowcheck {
namespace program {
namespace {

// The state a QP would be in, as the generator imagines it.
enum class Sim { kIdle, kOwned, kWaiting, kOwnedRarr };

}  // namespace

std::vector<ListedOp> GenerateOps(const StressConfig& c, uint64_t execution, int index, bool irq) {
  Rng rng(StreamSeed(StreamSeed(c.seed, 0x5c4ed000ull + execution), static_cast<uint64_t>(index)));
  std::vector<ListedOp> ops;
  const int nqps = c.threads * c.qps_per_thread;
  int bare = 0;
  auto bare_op = [&](int limit) {
    if (bare == 0 || (bare < limit && rng.Chance(0.75))) {
      const uint32_t r = rng.Below(100);
      const int last = r < 80 ? static_cast<int>(rng.Below(RXE_NUM_TID_FLOWS))
                       : r < 95 ? RXE_NUM_TID_FLOWS
                                : -1;
      ops.push_back({kOpBareReserve, static_cast<int>(rng.Below(c.contexts)), last});
      ++bare;
    } else {
      ops.push_back({kOpBareRelease, static_cast<int>(rng.Below(bare)), 0});
      --bare;
    }
  };
  if (irq) {
    for (int k = 0; k < c.sched_ops; ++k) {
      if (rng.Below(100) < 60) {
        bare_op(4);
      } else {
        ops.push_back({kOpResync, static_cast<int>(rng.Below(nqps)), 0});
      }
    }
    return ops;
  }
  std::vector<Sim> sim(c.qps_per_thread, Sim::kIdle);
  for (int k = 0; k < c.sched_ops; ++k) {
    if (c.bare_per_thread > 0 && rng.Below(6) == 0) {
      bare_op(c.bare_per_thread);
      continue;
    }
    const int slot = static_cast<int>(rng.Below(c.qps_per_thread));
    Sim& s = sim[slot];
    // A segment op, READ requester's or WRITE responder's (no draw at all at
    // 0%, so the lists stay as they were).
    if ((s == Sim::kOwned || s == Sim::kOwnedRarr) && c.sched_segment_percent > 0 &&
        static_cast<int>(rng.Below(100)) < c.sched_segment_percent) {
      const uint32_t r = rng.Below(100);
      const ListedOpKind kind = r < 30   ? kOpSegment
                                : r < 45 ? kOpSegmentDone
                                : r < 70 ? kOpWriteAlloc
                                : r < 85 ? kOpWriteData
                                : r < 93 ? kOpReadComplete
                                         : kOpWriteIdle;
      ops.push_back({kind, slot, 0});
      if (kind == kOpSegment || kind == kOpWriteAlloc) {
        s = rng.Chance(0.7) ? Sim::kOwned : Sim::kOwnedRarr;
      } else if ((kind == kOpReadComplete || kind == kOpWriteIdle) && s == Sim::kOwned &&
                 rng.Chance(0.5)) {
        s = Sim::kIdle;
      }
      continue;
    }
    const uint32_t r = rng.Below(100);
    ListedOpKind kind = kOpUse;
    switch (s) {  // the weights of the free-running ops (qp_ops.cc)
      case Sim::kIdle:
        kind = r < 92 ? kOpSetup : kOpResyncAck;
        // With a few flows free, most setups wait.
        if (kind == kOpSetup) s = rng.Chance(0.35) ? Sim::kOwned : Sim::kWaiting;
        break;
      case Sim::kOwned:
        kind = r < 30 ? kOpUse : r < 75 ? kOpRelease : r < 85 ? kOpRarrWait : r < 95 ? kOpRarrRelease
                                                                        : kOpResyncAck;
        if (kind == kOpRelease) s = Sim::kIdle;
        if (kind == kOpRarrWait) s = Sim::kOwnedRarr;
        break;
      case Sim::kWaiting:
        kind = r < 40 ? kOpPoll : r < 90 ? kOpGiveUp : kOpRetry;
        if (kind == kOpGiveUp) s = Sim::kIdle;
        if (kind != kOpGiveUp && rng.Chance(0.5)) s = Sim::kOwned;
        break;
      case Sim::kOwnedRarr:
        kind = r < 30 ? kOpUse : r < 70 ? kOpRarrGrant : r < 90 ? kOpFlushRarr : kOpResyncAck;
        if (kind == kOpRarrGrant || kind == kOpFlushRarr) s = Sim::kOwned;
        break;
    }
    ops.push_back({kind, slot, 0});
  }
  return ops;
}

}  // namespace program
}  // namespace flowcheck
