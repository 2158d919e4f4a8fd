// program/qp_ops.cc: what an op thread does to its own QPs (see ops.h).
//
// Each op is one of the driver's callers (core/callers.h), as the send
// engine setting up a flow, a sync point clearing it, the RcvArray allocator
// queueing the QP for TIDs, a QP error giving up (flush), ... The caller
// takes exactly the driver's locks and runs the op's checks (OpCheck) while
// it still holds them. "use" and "poll" are the harness looking at its QP.
//
// The waiting protocol (what the no-lost-wakeup check relies on): a QP whose
// setup returned -EAGAIN stays queued with wants_flow set; its thread does
// NOT retry on its own schedule (except the rare "retry" op, as a new
// request would) but waits for the send engine, run by a worker after a
// wakeup, to obtain the flow, which the thread then sees (poll); or it
// gives up (flush, wants_flow cleared). In the final drain nobody gives up:
// every waiter must be granted, so a wakeup that never comes shows.
#include "common/strings.h"
#include "core/callers.h"
#include "core/exp_rcv.h"
#include "core/tid_rdma.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/schedule.h"
#include "program/op_check.h"
#include "program/op_list.h"
#include "program/ops.h"

namespace flowcheck {
namespace program {
namespace {

// What hfi1_kern_clear_hw_flow does after a release, for the harness's own
// give-up: wake the head of flow_queue (see OpGiveUp).
void WakeFlowQueueHead(ContextState* ctx) {
  unsigned long flags;
  spin_lock_irqsave(&ctx->rcd->exp_lock, flags);
  rvt_qp* fqp = first_qp(ctx->rcd, &ctx->rcd->flow_queue);
  spin_unlock_irqrestore(&ctx->rcd->exp_lock, flags);
  tid_rdma_schedule_tid_wakeup(fqp);
}

// The send engine building a segment (hfi1_build_tid_rdma_read_req /
// hfi1_tid_write_alloc_resources): s_lock, hfi1_kern_setup_hw_flow.
void OpSetup(Participant* p, QpSlot* s, bool retry) {
  p->doing.store(retry ? "retry setup (s_lock -> hfi1_kern_setup_hw_flow)"
                       : "setup (s_lock -> hfi1_kern_setup_hw_flow)",
                 std::memory_order_relaxed);
  OpCheck check(p, s->ctx, retry ? "retry setup" : "setup");
  const int ret = caller_setup_hw_flow(s->qp, &check);
  if (!retry) {
    p->Count(ret == 0 ? kSetupOk : kSetupEagain);
  } else if (!check.wanted_flow_before()) {
    p->Count(kGrantedByWakeup);  // the send engine had got it already
  } else {
    p->Count(ret == 0 ? kGrantedByRetry : kRetryEagain);
  }
  s->state = ret == 0 ? QpState::kOwned : QpState::kWaitingFlow;
}

// "Use the flow": build packets under s_lock; nobody may take the flow away.
void OpUse(Participant* p, Run* run, QpSlot* s) {
  rvt_qp* qp = s->qp;
  unsigned long flags;
  p->doing.store("use (s_lock held, flow in use)", std::memory_order_relaxed);
  spin_lock_irqsave(&qp->s_lock, flags);
  const u8 before = qp->priv->flow_state.index;
  MaybeYield(run->yield.get());
  // Under a controlled scheduler another thread may run here, s_lock held.
  lockcheck::SchedulePointNamed("use: s_lock held");
  MaybeYield(run->yield.get());
  const u8 after = qp->priv->flow_state.index;
  spin_unlock_irqrestore(&qp->s_lock, flags);
  if (before >= RXE_NUM_TID_FLOWS || before != after) {
    FailWith(Finding{kIdUse, flowcheck::StrFormat("qp %u, owner of a flow, saw flow_state.index %u "
                                                  "then %u while holding its s_lock",
                                                  qp->qp_num, before, after)},
             p->name);
  }
  CheckContextLocked(p, s->ctx, "use");
  p->Count(kUses);
}

// QP error while waiting: the request layer gives up the flow it waits for
// (flush_qp_waiters and wants_flow cleared in one s_lock critical section),
// unless the send engine got it first.
void OpGiveUp(Participant* p, Run* run, QpSlot* s) {
  p->doing.store("give up (s_lock -> flush_qp_waiters)", std::memory_order_relaxed);
  OpCheck check(p, s->ctx, "give up (flush)", /*expected_queue=*/0);
  if (!caller_give_up_flow_wait(s->qp, &check)) {
    p->Count(kGrantedByWakeup);
    s->state = QpState::kOwned;
    return;
  }
  p->Count(kGiveUp);
  s->state = QpState::kIdle;
  // The kernel does not pass the wakeup on here: a flushed head that had
  // been woken takes the wakeup with it (docs/stress.md).
  if (run->config.flush_handoff) WakeFlowQueueHead(s->ctx);
}

void OpRarrWait(Participant* p, QpSlot* s) {
  p->doing.store("rarr wait (s_lock, exp_lock -> queue on rarr_queue)", std::memory_order_relaxed);
  OpCheck check(p, s->ctx, "rarr wait", 'r');
  caller_rarr_wait(s->qp, &check);
  p->Count(kRarrWaits);
  s->state = QpState::kOwnedRarr;
}

void OpRarrRelease(Participant* p, QpSlot* s) {
  p->doing.store("rarr release (wake the head of rarr_queue)", std::memory_order_relaxed);
  OpCheck check(p, s->ctx, "rarr release");
  caller_rarr_release(s->qp, &check);
  p->Count(kRarrReleases);
}

void OpFlushRarr(Participant* p, QpSlot* s) {
  p->doing.store("flush a rarr waiter (s_lock -> flush_qp_waiters)", std::memory_order_relaxed);
  OpCheck check(p, s->ctx, "flush rarr wait", 0);
  caller_flush_wait(s->qp, &check);
  p->Count(kRarrFlushes);
  s->state = QpState::kOwned;
}

// A segment's layout: `psets` pagesets of one page (2 at an 8 KiB MTU, the
// 8k helper's pairs); 0: a random layout of 2..16 pagesets (an even count:
// the page helpers pad a segment to whole pairs), each of 1..4 pages.
// Fills pages[0..n) and returns n.
int DrawLayout(Participant* p, const QpSlot* s, int psets, u8 pages[16]) {
  const bool eight_k = s->qp->pmtu == 8192;
  const int n = psets != 0 ? psets : 2 * (1 + static_cast<int>(p->rng.Below(8)));
  for (int i = 0; i < n; ++i) {
    pages[i] = eight_k ? 2 : psets != 0 ? 1 : static_cast<u8>(1 + p->rng.Below(4));
  }
  return n;
}

// The READ requester's next segment, laid out as DrawLayout says (the send
// engine's TID READ branch, which runs the kernel's
// hfi1_build_tid_rdma_read_req): the thread then believes what the model
// says (OpCheck::derived_state): sent, waiting for TIDs, or (a new
// generation, no flow free) waiting for a flow; a sync point's wait, the
// RDMAR limit and a full ring change nothing.
void SegmentOp(Participant* p, QpSlot* s, int psets, const char* where) {
  u8 pages[16];
  const int n = DrawLayout(p, s, psets, pages);
  OpCheck check(p, s->ctx, where);
  const int ret = caller_read_req_segment(s->qp, pages, static_cast<u8>(n), &check);
  if (ret == 0) {
    p->Count(kSegmentsSetUp);
  } else if (ret == -EAGAIN) {
    p->Count(kSegmentsQueued);
    // Queued for a flow: a wait began, as after a setup's -EAGAIN (the final
    // no-lost-wakeup count pairs it with its grant or give-up).
    if (check.lost_flow()) p->Count(kSetupEagain);
  }
  s->state = check.derived_state();
}

// The READ requester's next segment.
void OpSegment(Participant* p, QpSlot* s, int psets = 0) {
  p->doing.store("segment (s_lock -> hfi1_build_tid_rdma_read_req)", std::memory_order_relaxed);
  SegmentOp(p, s, psets, "segment");
}

// Whether the QP's next READ segment waited for TIDs (its pagesets are
// computed but it is not set up): the one a READ requester waiting on
// rarr_queue retries. A wait that came from the rarr_wait gate has none.
// Only the QP's own thread touches its requests.
bool SegmentQueued(const QpSlot* s) {
  return tid_request_has_waiting_segment(s->qp->priv->model_swqe->tid_req);
}
// The same for the QP's next WRITE segment.
bool WriteQueued(const QpSlot* s) {
  return tid_request_has_waiting_segment(s->qp->priv->model_ack->tid_req);
}
// On rarr_queue, a role's ops run only if its own segment is the one that
// waits and the other role's does not: a sync point of one role could then
// free the flow of a QP waiting for the other's TIDs, a state the engine
// cannot hold (OpCheck::Derived).
bool ReadWaits(const QpSlot* s) { return SegmentQueued(s) && !WriteQueued(s); }
bool WriteWaits(const QpSlot* s) { return WriteQueued(s) && !SegmentQueued(s); }

// The oldest READ segment's response arrives (caller_read_resp_segment):
// its TIDs are freed; the READ's last response, or the last due at a sync
// point, frees the flow. Returns the caller's result (-EINVAL: none was in
// flight, nothing changed).
int ReadResponse(Participant* p, QpSlot* s, const char* where) {
  OpCheck check(p, s->ctx, where);
  const bool owned = s->state == QpState::kOwned;
  const int ret = caller_read_resp_segment(s->qp, &check);
  if (ret == 0) p->Count(kSegmentsCleared);
  if (owned && check.derived_state() == QpState::kIdle) p->Count(kReleases);
  s->state = check.derived_state();
  return ret;
}

void OpSegmentDone(Participant* p, QpSlot* s) {
  p->doing.store("segment done (s_lock -> hfi1_kern_exp_rcv_clear)", std::memory_order_relaxed);
  ReadResponse(p, s, "segment done");
}

// The WRITE responder's ops: each runs hfi1_tid_write_alloc_resources as
// one of its kernel callers does, which may allocate segments, set up,
// free or renew the flow, or queue the QP; the thread then believes what
// the model says (OpCheck::derived_state). A wait for a flow that began
// here is counted as a setup's (the no-lost-wakeup pairing).
void WriteOp(Participant* p, QpSlot* s, OpCheck* check, int ret) {
  if (check->lost_flow()) p->Count(kSetupEagain);
  if (ret == 0 && check->derived_state() != QpState::kWaitingFlow) p->Count(kSegmentsSetUp);
  s->state = check->derived_state();
}

// A TID WRITE request arrives (a new one: `psets` pagesets per segment, 0:
// a random layout, as SegmentOp draws it; or the one resent after its RNR
// NAK), or with one open the send engine allocates for it.
void OpWriteAlloc(Participant* p, QpSlot* s, int psets = 0) {
  p->doing.store("write alloc (r_lock, s_lock -> hfi1_tid_write_alloc_resources)",
                 std::memory_order_relaxed);
  u8 pages[16];
  const int n = DrawLayout(p, s, psets, pages);
  OpCheck check(p, s->ctx, "write alloc");
  const int ret = caller_write_alloc_segment(s->qp, pages, static_cast<u8>(n), &check);
  if (ret == -EAGAIN && !check.lost_flow()) p->Count(kSegmentsQueued);
  WriteOp(p, s, &check, ret);
}

// A WRITE segment's last data packet arrived: its TIDs are freed, then the
// allocator runs (nothing if no segment is pending).
void OpWriteData(Participant* p, QpSlot* s) {
  p->doing.store("write data (r_lock, s_lock -> hfi1_kern_exp_rcv_clear, alloc_resources)",
                 std::memory_order_relaxed);
  OpCheck check(p, s->ctx, "write data");
  const int ret = caller_write_data_segment(s->qp, &check);
  if (ret == 0) p->Count(kSegmentsCleared);
  WriteOp(p, s, &check, -EBUSY);
}

// The responses of every READ segment in flight arrive, in order (each as
// segment_done): the READ's last, if it was sent, completes it and frees the
// flow (tid_r_comp == tid_r_reqs); a sync point's last frees it too. Neither
// looks at the WRITE responder's segments ([R-10]).
void OpReadComplete(Participant* p, QpSlot* s) {
  p->doing.store("read complete (s_lock -> hfi1_kern_exp_rcv_clear, each segment)",
                 std::memory_order_relaxed);
  while (ReadResponse(p, s, "read complete") == 0) {
  }
}

// The send engine: a scheduled RNR NAK goes out, else the allocator runs
// for the open request (with none left and no data pending it frees the
// flow).
void OpWriteIdle(Participant* p, QpSlot* s) {
  p->doing.store("write idle (s_lock -> hfi1_tid_write_alloc_resources)",
                 std::memory_order_relaxed);
  OpCheck check(p, s->ctx, "write idle");
  if (caller_write_alloc_idle(s->qp, &check) == 1) p->Count(kReleases);
  WriteOp(p, s, &check, -EBUSY);
}

// The request ends (hfi1_qp_kern_exp_rcv_clear_all at a QP reset): the TIDs
// of both roles' live segments are freed.
void ClearSegments(Participant* p, QpSlot* s) {
  OpCheck segments(p, s->ctx, "release's segments");
  caller_read_req_clear_all(s->qp, &segments);
  OpCheck data(p, s->ctx, "release's WRITE segments");
  caller_write_req_clear_all(s->qp, &data);
}

void OpResyncAck(Participant* p, QpSlot* s) {
  p->doing.store("RESYNC ack (s_lock, resync = false)", std::memory_order_relaxed);
  OpCheck check(p, s->ctx, "resync ack");
  caller_clear_resync(s->qp, &check);
  p->Count(kResyncAcks);
}

}  // namespace

// A sync point or the last completion: s_lock, hfi1_kern_clear_hw_flow.
void OpRelease(Participant* p, QpSlot* s) {
  p->doing.store("release (s_lock -> hfi1_kern_clear_hw_flow)", std::memory_order_relaxed);
  // The request ends: the TIDs of its segments go first (the kernel's
  // hfi1_qp_kern_exp_rcv_clear_all before the flow at a QP reset).
  ClearSegments(p, s);
  OpCheck check(p, s->ctx, "release");
  caller_clear_hw_flow(s->qp, &check);
  p->Count(kReleases);
  s->state = QpState::kIdle;
}

// Did the send engine obtain the flow for this waiting QP?
void OpPoll(Participant* p, QpSlot* s) {
  rvt_qp* qp = s->qp;
  unsigned long flags;
  p->doing.store("poll a waiting QP", std::memory_order_relaxed);
  spin_lock_irqsave(&qp->s_lock, flags);
  const bool granted = qp->priv->flow_state.index < RXE_NUM_TID_FLOWS;
  const bool wants = qp->priv->model_req.wants_flow;
  spin_unlock_irqrestore(&qp->s_lock, flags);
  if (granted) {
    if (wants) {
      FailWith(Finding{kIdSetup, flowcheck::StrFormat("qp %u owns flow but its send engine still "
                                                      "wants one",
                                                      qp->qp_num)},
               p->name);
    }
    p->Count(kGrantedByWakeup);
    s->state = QpState::kOwned;
  }
  CheckContextLocked(p, s->ctx, "poll");
}

void OpRarrGrant(Participant* p, QpSlot* s) {
  p->doing.store("rarr grant (dequeue from rarr_queue, wake its head)", std::memory_order_relaxed);
  // Behind another RcvArray waiter the kernel's gate queues it instead.
  OpCheck check(p, s->ctx, "rarr grant", kAnyQueue);
  if (caller_rarr_grant(s->qp, &check) != 0) {
    s->state = QpState::kOwnedRarr;
    return;
  }
  p->Count(kRarrGrants);
  s->state = QpState::kOwned;
}

void QpOp(Run* run, Participant* p, QpSlot* s) {
  const uint32_t r = p->rng.Below(100);
  switch (s->state) {
    case QpState::kIdle:
      if (r < 88) OpSetup(p, s, /*retry=*/false);
      else if (r < 92) OpWriteAlloc(p, s);
      else if (r < 94) OpWriteData(p, s);  // a WRITE segment left live
      else OpResyncAck(p, s);
      break;
    case QpState::kOwned:
      if (r < 25) OpUse(p, run, s);
      else if (r < 45) OpRelease(p, s);
      else if (r < 55) OpSegment(p, s);
      else if (r < 63) OpSegmentDone(p, s);
      else if (r < 71) OpWriteAlloc(p, s);
      else if (r < 77) OpWriteData(p, s);
      else if (r < 79) OpReadComplete(p, s);
      else if (r < 81) OpWriteIdle(p, s);
      else if (r < 89) OpRarrWait(p, s);
      else if (r < 96) OpRarrRelease(p, s);
      else OpResyncAck(p, s);
      break;
    case QpState::kWaitingFlow:
      if (r < 75) OpPoll(p, s);
      else if (r < 88) OpGiveUp(p, run, s);
      else OpSetup(p, s, /*retry=*/true);
      break;
    case QpState::kOwnedRarr:
      if (r < 20) OpUse(p, run, s);
      else if (r < 35 && ReadWaits(s)) OpSegment(p, s);  // its retry
      else if (r < 35 && WriteWaits(s)) OpWriteAlloc(p, s);
      else if (r < 40 && ReadWaits(s)) OpSegmentDone(p, s);
      else if (r < 70) OpRarrGrant(p, s);
      else if (r < 90) OpFlushRarr(p, s);
      else OpResyncAck(p, s);
      break;
  }
}

// The QP ops' runners (ops.h). Most only run their op: the row's `fits` is
// all they test (one line each). The state tests beyond `fits` are the
// ones only the run can make (segment, write_alloc below).
#define FLOWCHECK_PLAIN_RUNNER(kind, ...)                                   \
  bool Run##kind(Run* run, Participant* p, QpSlot* s, const ListedOp&) { \
    (void)run;                                                             \
    __VA_ARGS__;                                                           \
    return true;                                                           \
  }
// A setup on a QP that waits for a flow is a retry.
FLOWCHECK_PLAIN_RUNNER(Setup, OpSetup(p, s, /*retry=*/s->state == QpState::kWaitingFlow))
FLOWCHECK_PLAIN_RUNNER(Retry, OpSetup(p, s, /*retry=*/true))
FLOWCHECK_PLAIN_RUNNER(Release, OpRelease(p, s))
FLOWCHECK_PLAIN_RUNNER(Use, OpUse(p, run, s))
FLOWCHECK_PLAIN_RUNNER(Poll, OpPoll(p, s))
FLOWCHECK_PLAIN_RUNNER(GiveUp, OpGiveUp(p, run, s))
FLOWCHECK_PLAIN_RUNNER(RarrWait, OpRarrWait(p, s))
FLOWCHECK_PLAIN_RUNNER(RarrGrant, OpRarrGrant(p, s))
FLOWCHECK_PLAIN_RUNNER(RarrRelease, OpRarrRelease(p, s))
FLOWCHECK_PLAIN_RUNNER(FlushRarr, OpFlushRarr(p, s))
FLOWCHECK_PLAIN_RUNNER(ResyncAck, OpResyncAck(p, s))
FLOWCHECK_PLAIN_RUNNER(WriteData, OpWriteData(p, s))
FLOWCHECK_PLAIN_RUNNER(WriteIdle, OpWriteIdle(p, s))
FLOWCHECK_PLAIN_RUNNER(ReadComplete, OpReadComplete(p, s))
#undef FLOWCHECK_PLAIN_RUNNER

// Waiting for TIDs, a role only retries the segment that waited (the
// kernel never starts another meanwhile), or takes its responses
// (ReadWaits, WriteWaits).
bool RunSegment(Run*, Participant* p, QpSlot* s, const ListedOp& op) {
  if (s->state == QpState::kOwnedRarr && !ReadWaits(s)) return false;
  OpSegment(p, s, op.b);
  return true;
}
bool RunSegmentDone(Run*, Participant* p, QpSlot* s, const ListedOp&) {
  if (s->state == QpState::kOwnedRarr && !ReadWaits(s)) return false;
  OpSegmentDone(p, s);
  return true;
}
bool RunWriteAlloc(Run*, Participant* p, QpSlot* s, const ListedOp& op) {
  if (s->state == QpState::kOwnedRarr && !WriteWaits(s)) return false;
  OpWriteAlloc(p, s, op.b);
  return true;
}

namespace {

// The QP state as the rows' state bits (op_list.h).
unsigned StateBit(QpState s) {
  switch (s) {
    case QpState::kIdle: return kIdle;
    case QpState::kOwned: return kOwned;
    case QpState::kWaitingFlow: return kWaiting;
    case QpState::kOwnedRarr: return kRarr;
  }
  return 0;
}

using Runner = bool (*)(Run*, Participant*, QpSlot*, const ListedOp&);
constexpr Runner kRunners[] = {
#define FLOWCHECK_STRESS_RUNNER(kind, ...) &Run##kind,
    FLOWCHECK_LISTED_OPS(FLOWCHECK_STRESS_RUNNER)
#undef FLOWCHECK_STRESS_RUNNER
};
static_assert(sizeof(kRunners) / sizeof(kRunners[0]) == kNumListedOps, "one runner per row");

}  // namespace

bool RunListedOp(Run* run, Participant* p, const ListedOp& op) {
  const ListedOpRow& row = kListedOpRows[op.kind];
  if (row.fits == 0) return kRunners[op.kind](run, p, nullptr, op);
  if (p->slots.empty()) return false;
  QpSlot* s = &p->slots[op.a % p->slots.size()];
  if ((StateBit(s->state) & row.fits) == 0) return false;
  return kRunners[op.kind](run, p, s, op);
}

void DrainRelease(Participant* p) {
  while (!p->bare.empty()) BareRelease(p, p->bare.size() - 1);
  for (QpSlot& s : p->slots) {
    if (s.state == QpState::kOwnedRarr) OpRarrGrant(p, &s);
  }
}

void DrainSlots(Participant* p) {
  for (QpSlot& s : p->slots) {
    if (s.state == QpState::kOwnedRarr) OpRarrGrant(p, &s);  // was behind another
    if (s.state == QpState::kWaitingFlow) OpPoll(p, &s);
    if (s.state == QpState::kOwned) OpRelease(p, &s);
    // Segments one role left live when the other freed the flow ([R-10]).
    if (s.state == QpState::kIdle) ClearSegments(p, &s);
  }
}

}  // namespace program
}  // namespace flowcheck
