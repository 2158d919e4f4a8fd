// stress/op_list.h: internal to the driver. Controlled runs (--sched) give
// every thread an explicit list of ops per execution, drawn from (seed,
// execution) or read back from a schedule file's `param ops.<thread>=...`.
//
// One table names every op. A listed op is `name@A` or `name@A.B`:
//   QP ops (setup, retry, release, use, poll, give_up, rarr_wait, rarr_grant,
//   rarr_release, flush_rarr, resync_ack, segment, segment_done, write_alloc,
//   write_data, write_idle, read_complete): A = the
//   thread's QP slot (mod its slot count). The op runs only if it fits what the thread believes the QP
//   is (the same states as the free-running ops, stress/ops.h); otherwise it
//   is skipped. So any op may be deleted from a list and the list stays
//   valid: a minimizer can cut ops without knowing what they mean.
//   bare_reserve@C.L  a bare kern_reserve_flow on context C (mod contexts)
//                     preferring flow L;
//   segment@A.N       the READ requester's next segment on slot A: N
//                     pagesets of one page (two at an 8 KiB MTU), N even in
//                     2..16; segment@A (N = 0): a layout drawn at random;
//   write_alloc@A.N   the same for the TID WRITE the QP answers (the WRITE
//                     responder's allocator); write_data@A a WRITE segment's
//                     data arrived; write_idle@A the allocator has no request
//                     left; read_complete@A the response that completes the
//                     QP's last READ (core/callers.h);
//   bare_release@K    release the thread's K-th held bare flow (mod how many;
//                     skipped if none);
//   resync@J          a RESYNC for QP J of the run (mod the QP count), for
//                     the next generation.
// A list is the ops joined by ',' ("" = none).
#ifndef FLOWCHECK_STRESS_OP_LIST_H_
#define FLOWCHECK_STRESS_OP_LIST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "stress/config.h"

namespace flowcheck {
namespace stress {

// X(Kind, name): the one op table (ListedOpKind kOp<Kind>).
#define FLOWCHECK_STRESS_LISTED_OPS(X) \
  X(Setup, "setup")                   \
  X(Retry, "retry")                   \
  X(Release, "release")               \
  X(Use, "use")                       \
  X(Poll, "poll")                     \
  X(GiveUp, "give_up")                \
  X(RarrWait, "rarr_wait")            \
  X(RarrGrant, "rarr_grant")          \
  X(RarrRelease, "rarr_release")      \
  X(FlushRarr, "flush_rarr")          \
  X(ResyncAck, "resync_ack")          \
  X(Segment, "segment")               \
  X(SegmentDone, "segment_done")      \
  X(BareReserve, "bare_reserve")      \
  X(BareRelease, "bare_release")      \
  X(Resync, "resync")                 \
  X(WriteAlloc, "write_alloc")        \
  X(WriteData, "write_data")          \
  X(WriteIdle, "write_idle")          \
  X(ReadComplete, "read_complete")

enum ListedOpKind {
#define FLOWCHECK_STRESS_OP_ENUM(kind, name) kOp##kind,
  FLOWCHECK_STRESS_LISTED_OPS(FLOWCHECK_STRESS_OP_ENUM)
#undef FLOWCHECK_STRESS_OP_ENUM
  kNumListedOps
};

// True for the ops that act on one of the thread's QP slots.
// (The WRITE responder's ops came last, so that the lists of earlier ops
// keep their order in dfs's program space.)
inline bool IsQpOp(int kind) {
  return kind <= kOpSegmentDone || (kind >= kOpWriteAlloc && kind <= kOpReadComplete);
}

struct ListedOp {
  ListedOpKind kind = kOpSetup;
  int a = 0;
  int b = 0;  // bare_reserve: the preferred flow; segment, write_alloc: pagesets (0: drawn)
  bool operator==(const ListedOp& o) const { return kind == o.kind && a == o.a && b == o.b; }
};

// One op list per participant of a controlled execution: each op thread in
// order, then rcv-irq.
using OpLists = std::vector<std::vector<ListedOp>>;

const char* ListedOpName(ListedOpKind kind);

std::string FormatOps(const std::vector<ListedOp>& ops);

// Parses a list; false with *error naming the bad op.
bool ParseOps(const std::string& text, std::vector<ListedOp>* ops, std::string* error);

// The op list of participant `index` (an op thread, or rcv-irq when `irq`)
// for execution `execution` of a run with `c`: sched_ops ops, each fitting
// the state the QP would be in if every earlier op of the list ran (a wait
// drawn as granted or not at random), so that most of them do run.
std::vector<ListedOp> GenerateOps(const StressConfig& c, uint64_t execution, int index, bool irq);

}  // namespace stress
}  // namespace flowcheck

#endif  // FLOWCHECK_STRESS_OP_LIST_H_
