// program/op_list.cc: see op_list.h.
#include "program/op_list.h"

#include <cerrno>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/tid_rdma.h"
#include "program/rng.h"

namespace flowcheck {
namespace program {
namespace {

bool ParseInt(const std::string& s, int* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < -1000000 || v > 1000000) return false;
  *out = static_cast<int>(v);
  return true;
}

// The state a QP would be in, as the generator imagines it.
enum class Sim { kIdle, kOwned, kWaiting, kOwnedRarr };

}  // namespace

const char* ListedOpName(ListedOpKind kind) { return kListedOpRows[kind].name; }

std::string FormatOps(const std::vector<ListedOp>& ops) {
  std::vector<std::string> parts;
  for (const ListedOp& op : ops) {
    const ListedOpRow& row = kListedOpRows[op.kind];
    const bool two = row.args == kContextFlow || (row.args == kSlotPagesets && op.b != 0);
    parts.push_back(two ? absl::StrCat(row.name, "@", op.a, ".", op.b)
                        : absl::StrCat(row.name, "@", op.a));
  }
  return absl::StrJoin(parts, ",");
}

bool ParseOps(const std::string& text, std::vector<ListedOp>* ops, std::string* error) {
  ops->clear();
  if (text.empty()) return true;
  for (const absl::string_view token : absl::StrSplit(text, ',')) {
    const std::string t(token);
    const size_t at = t.find('@');
    const std::string name = t.substr(0, at);
    ListedOp op;
    int kind = 0;
    while (kind < kNumListedOps && name != kListedOpRows[kind].name) ++kind;
    if (kind == kNumListedOps) {
      *error = "unknown op '" + t + "'";
      return false;
    }
    op.kind = static_cast<ListedOpKind>(kind);
    const OpArgs args = kListedOpRows[kind].args;
    if (args == kContextFlow) op.b = RXE_NUM_TID_FLOWS;  // "don't care"
    if (at != std::string::npos) {
      const std::string a = t.substr(at + 1);
      const size_t dot = a.find('.');
      if (!ParseInt(a.substr(0, dot), &op.a) || op.a < 0 ||
          (dot != std::string::npos &&
           ((args != kContextFlow && args != kSlotPagesets) ||
            !ParseInt(a.substr(dot + 1), &op.b)))) {
        *error = "bad argument in op '" + t +
                 "' (expected NAME@N, or NAME@CONTEXT.FLOW for bare_reserve, NAME@SLOT.PAGESETS "
                 "for segment and write_alloc)";
        return false;
      }
      if (args == kSlotPagesets && (op.b < 0 || op.b > 16 || op.b % 2 != 0)) {
        *error = "bad argument in op '" + t + "' (" + name +
                 "@SLOT.PAGESETS: an even 2..16, or 0)";
        return false;
      }
    }
    ops->push_back(op);
  }
  return true;
}

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
