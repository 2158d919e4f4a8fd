// program/op_table.h: THE table of the ops a concurrent program is made of
// (a thread's op list: program/op_list.h; a sched_fuzz input's records:
// fuzz/sched_fuzz_format.h), and their text form.
//
// One table (below) names every op. A listed op is `name@A` or `name@A.B`:
//   QP ops (setup, retry, release, use, poll, give_up, rarr_wait, rarr_grant,
//   rarr_release, flush_rarr, resync_ack, segment, segment_done, write_alloc,
//   write_data, write_idle, read_complete): A = the
//   thread's QP slot (mod its slot count). The op runs only if it fits what the thread believes the QP
//   is (the same states as the free-running ops, program/ops.h); otherwise it
//   is skipped. So any op may be deleted from a list and the list stays
//   valid: a minimizer can cut ops without knowing what they mean.
//   bare_reserve@C.L  a bare kern_reserve_flow on context C (mod contexts)
//                     preferring flow L;
//   segment@A.N       the READ requester's next segment on slot A (the
//                     kernel's hfi1_build_tid_rdma_read_req; a new READ of
//                     2 segments is posted when none is open): N
//                     pagesets of one page (two at an 8 KiB MTU), N even in
//                     2..16; segment@A (N = 0): a layout drawn at random;
//                     segment_done@A the oldest segment's response (the
//                     READ's last frees the flow);
//   write_alloc@A.N   a TID WRITE request arrives at the QP as responder
//                     (its segments laid out as segment@A.N's), or is resent
//                     after its RNR NAK, or the send engine allocates for the
//                     open one; write_data@A a WRITE segment's data arrived;
//                     write_idle@A the send engine's turn (the RNR NAK, or
//                     the allocator); each runs the kernel's
//                     hfi1_tid_write_alloc_resources; read_complete@A the
//                     responses of every READ segment in flight
//                     (core/callers.h);
//   bare_release@K    release the thread's K-th held bare flow (mod how many;
//                     skipped if none);
//   resync@J          a RESYNC for QP J of the run (mod the QP count), for
//                     the next generation.
// A list is the ops joined by ',' ("" = none).
#ifndef FLOWCHECK_PROGRAM_OP_TABLE_H_
#define FLOWCHECK_PROGRAM_OP_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/callers.h"

// A test build (//program:op_table_test) appends its rows to the table below.
#ifdef FLOWCHECK_TEST_OP_ROWS
#include "program/testdata/test_op_rows.h"
#else
#define FLOWCHECK_TEST_OPS(X)
#endif

namespace flowcheck {
namespace program {

// What a listed op needs, one row each: the one op table. Adding an op is
// a row here plus its runner, `bool Run<Kind>(Run*, Participant*, QpSlot*,
// const ListedOp&)` (ops.h: it calls the op's core/callers.h function); every
// other use derives from the row: the name lists parse and print, where the
// op may run (a QP op runs only in a state of `fits`, else it is skipped),
// what dfs explores (program_space.h: the arguments from `args`, the states
// it may lead to from `after`). Random and pct draw an op only where the
// generator (GenerateOps) gives it a weight. //program:op_table_test adds a
// row in a test build and shows it parsed, explored and run.
//
// X(Kind, "name", args, fits, after, layouts, order, call):
//   args    how `name@A[.B]` reads (OpArgs); for QP ops A is the thread's slot
//   fits    the QP states (bits below) it runs in; 0: not a QP op (runs always)
//   after   the states it may leave the QP in, kUnchanged: also as it was
//   layouts kSlotPagesets: the pagesets dfs tries (k4 a group left partly
//           used, k12 one filled and one begun); 0 otherwise
//   order   how its effects order against its call's observed section, for
//           the oracle (program/oracle_follow.h): kInSection, kBefore (the
//           flow-layer function takes exp_lock itself, first), kAfter (a
//           wakeup follows), kLooks (no effect on the flow layer)
//   call    the core/callers.h caller whose observed section is the op's
//           (the last, for an op with several): FLOWCHECK_CALL(SetupHwFlow)
//           is CallerOp::kSetupHwFlow; kNoCall for the harness's looks
// The WRITE responder's ops come last, so that dfs enumerates the lists of
// the earlier ops in the order it did before they joined.
#define FLOWCHECK_LISTED_OPS(X)                                                            \
  X(Setup, "setup", kSlot, kIdle | kWaiting, kOwned | kWaiting, 0,                                \
    kBefore, FLOWCHECK_CALL(SetupHwFlow))                                                         \
  X(Retry, "retry", kSlot, kWaiting, kOwned | kWaiting, 0, kBefore, FLOWCHECK_CALL(SetupHwFlow))  \
  X(Release, "release", kSlot, kOwned, kIdle, 0, kBefore, FLOWCHECK_CALL(ClearHwFlow))            \
  X(Use, "use", kSlot, kOwned | kRarr, kUnchanged, 0, kLooks, kNoCall)                            \
  X(Poll, "poll", kSlot, kWaiting, kOwned | kWaiting, 0, kLooks, kNoCall)                         \
  /* the send engine may have got the flow first */                                               \
  X(GiveUp, "give_up", kSlot, kWaiting, kOwned | kIdle, 0,                                        \
    kBefore | kAfter, FLOWCHECK_CALL(GiveUpFlowWait))                                             \
  X(RarrWait, "rarr_wait", kSlot, kOwned, kRarr, 0, kInSection, FLOWCHECK_CALL(RarrWait))         \
  /* behind another waiter the grant queues again */                                              \
  X(RarrGrant, "rarr_grant", kSlot, kRarr, kOwned | kRarr, 0, kAfter, FLOWCHECK_CALL(RarrGrant))  \
  X(RarrRelease, "rarr_release", kSlot, kOwned, kOwned, 0, kAfter, FLOWCHECK_CALL(RarrRelease))   \
  X(FlushRarr, "flush_rarr", kSlot, kRarr, kOwned, 0, kBefore, FLOWCHECK_CALL(FlushWait))         \
  X(ResyncAck, "resync_ack", kSlot, kIdle | kOwned | kRarr, kUnchanged, 0,                        \
    kBefore, FLOWCHECK_CALL(ClearResync))                                                         \
  /* set up, short of TIDs, or (a new generation, no flow free) waiting for a flow */             \
  X(Segment, "segment", kSlotPagesets, kOwned | kRarr, kOwned | kRarr | kWaiting, k4 | k12,       \
    kBefore, FLOWCHECK_CALL(ReadReqSegment))                                                      \
  /* the READ's last response, or a sync point's, frees the flow */                               \
  X(SegmentDone, "segment_done", kSlot, kOwned | kRarr, kIdle | kUnchanged, 0,                    \
    kBefore, FLOWCHECK_CALL(ReadRespSegment))                                                     \
  X(BareReserve, "bare_reserve", kContextFlow, 0, 0, 0, kInSection, FLOWCHECK_CALL(ReserveFlow))  \
  X(BareRelease, "bare_release", kBareIndex, 0, 0, 0, kAfter, FLOWCHECK_CALL(ReleaseFlow))        \
  X(Resync, "resync", kQpIndex, 0, 0, 0, kBefore, FLOWCHECK_CALL(Resync))                         \
  /* hfi1_tid_write_alloc_resources under each op: any state may follow */                       \
  X(WriteAlloc, "write_alloc", kSlotPagesets, kIdle | kOwned | kRarr,                             \
    kIdle | kOwned | kRarr | kWaiting | kUnchanged, k4,                                           \
    kBefore, FLOWCHECK_CALL(WriteAllocSegment))                                                   \
  X(WriteData, "write_data", kSlot, kIdle | kOwned, kIdle | kOwned | kRarr | kWaiting | kUnchanged,\
    0, kBefore, FLOWCHECK_CALL(WriteDataSegment))                                                 \
  X(WriteIdle, "write_idle", kSlot, kOwned, kIdle | kOwned | kRarr | kWaiting | kUnchanged, 0,    \
    kBefore, FLOWCHECK_CALL(WriteAllocIdle))                                                      \
  X(ReadComplete, "read_complete", kSlot, kOwned, kOwned | kIdle, 0,                              \
    kBefore, FLOWCHECK_CALL(ReadRespSegment))                                                     \
  FLOWCHECK_TEST_OPS(X)

enum ListedOpKind {
#define FLOWCHECK_STRESS_OP_ENUM(kind, ...) kOp##kind,
  FLOWCHECK_LISTED_OPS(FLOWCHECK_STRESS_OP_ENUM)
#undef FLOWCHECK_STRESS_OP_ENUM
  kNumListedOps
};

// A QP slot's states as a set: the thread's belief (QpSlot::state).
enum : unsigned { kIdle = 1, kOwned = 2, kWaiting = 4, kRarr = 8, kUnchanged = 16 };
// How a listed op's arguments read.
enum OpArgs : uint8_t {
  kSlot,          // name@SLOT: one of the thread's QP slots (mod their count)
  kSlotPagesets,  // name@SLOT[.N]: N pagesets, an even 2..16; 0 or none: drawn
  kContextFlow,   // name@CONTEXT.FLOW (bare_reserve: mod contexts, the preferred flow)
  kBareIndex,     // name@K: the thread's K-th bare flow (mod how many; none: skipped)
  kQpIndex,       // name@J: QP J of the run (mod the QP count)
};
enum : unsigned { k4 = 1, k12 = 2 };
// How an op's effects order against its call's observed section (the
// oracle's rule, program/oracle_follow.h). kInSection: none of these.
enum : unsigned { kInSection = 0, kBefore = 1, kAfter = 2, kLooks = 4 };
// The call column: a core/callers.h CallerOp, or none.
#define FLOWCHECK_CALL(op) static_cast<int>(CallerOp::k##op)
inline constexpr int kNoCall = -1;

struct ListedOpRow {
  const char* name;
  OpArgs args;
  unsigned fits;
  unsigned after;
  unsigned layouts;
  unsigned order;
  int call;  // a CallerOp, or kNoCall
};
inline constexpr ListedOpRow kListedOpRows[] = {
#define FLOWCHECK_STRESS_OP_ROW(kind, name, args, fits, after, layouts, order, call) \
  {name, args, fits, after, layouts, order, call},
    FLOWCHECK_LISTED_OPS(FLOWCHECK_STRESS_OP_ROW)
#undef FLOWCHECK_STRESS_OP_ROW
};
static_assert(sizeof(kListedOpRows) / sizeof(kListedOpRows[0]) == kNumListedOps, "one row per op");

// True for the ops that act on one of the thread's QP slots.
inline bool IsQpOp(int kind) { return kListedOpRows[kind].fits != 0; }

struct ListedOp {
  ListedOpKind kind = kOpSetup;
  int a = 0;
  int b = 0;  // bare_reserve: the preferred flow; segment, write_alloc: pagesets (0: drawn)
  bool operator==(const ListedOp& o) const { return kind == o.kind && a == o.a && b == o.b; }
};

const char* ListedOpName(ListedOpKind kind);

std::string FormatOps(const std::vector<ListedOp>& ops);

// Parses a list; false with *error naming the bad op.
bool ParseOps(const std::string& text, std::vector<ListedOp>* ops, std::string* error);

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_OP_TABLE_H_
