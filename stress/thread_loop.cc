// stress/thread_loop.cc: what the stress threads do (see run_state.h).
//
// Op threads pick, with their seeded generator, one of their QPs and an op
// that fits what they believe its state is (QpState), as the driver's
// callers would: the send engine setting up a flow, using it, clearing it at
// a sync point, queueing for TIDs, giving up on error (flush), ... and, 25%
// of the time, a bare kern_reserve_flow / release cycle under exp_lock that
// squeezes the 32 flows. Each op is checked right after it, under exp_lock
// (and the QP's s_lock where the op's promise is about the QP).
//
// The waiting protocol (what the no-lost-wakeup check relies on): a QP whose
// setup returned -EAGAIN stays queued with wants_flow set; its thread does
// NOT retry on its own schedule (except the rare "retry" op, as a new
// request would) but waits for the send engine, run by a worker after a
// wakeup, to obtain the flow, which the thread then sees (poll); or it
// gives up (flush, wants_flow cleared). In the final drain nobody gives up:
// every waiter must be granted, so a wakeup that never comes shows.
#include <cerrno>

#include "absl/strings/str_format.h"

#include "core/bitops.h"
#include "core/callers.h"
#include "core/tid_rdma.h"
#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"
#include "stress/run_state.h"

namespace flowcheck {
namespace stress {
namespace {

void CheckCtx(Participant* p, const ContextState& ctx, const char* where)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx.rcd->exp_lock) {
  Judge(p, CheckAfterOp(ctx), where);
  p->Count(kChecks);
}

// The per-op check for ops that did not hold exp_lock at their end.
void CheckCtxLocked(Participant* p, ContextState* ctx, const char* where,
                    const rvt_qp* qp = nullptr, char expected_queue = '?') {
  unsigned long flags;
  spin_lock_irqsave(&ctx->rcd->exp_lock, flags);
  if (qp != nullptr && expected_queue != '?' && QueueOf(*ctx, qp) != expected_queue) {
    const char q = QueueOf(*ctx, qp);
    FailWith(Finding{kIdQueue, absl::StrFormat("after %s, qp %u is on %s, expected %s", where,
                                           qp->qp_num,
                                           q == 'f' ? "flow_queue" : q == 'r' ? "rarr_queue" : "no queue",
                                           expected_queue == 'f'   ? "flow_queue"
                                           : expected_queue == 'r' ? "rarr_queue"
                                                                   : "no queue")},
             p->name);
  }
  CheckCtx(p, *ctx, where);
  spin_unlock_irqrestore(&ctx->rcd->exp_lock, flags);
}

// What hfi1_kern_clear_hw_flow does after a release, for the harness's own
// releases: wake the head of flow_queue (the kernel has no bare release; a
// bare flow freed without this would strand a waiter, a harness bug).
void WakeFlowQueueHead(ContextState* ctx) {
  unsigned long flags;
  spin_lock_irqsave(&ctx->rcd->exp_lock, flags);
  rvt_qp* fqp = first_qp(ctx->rcd, &ctx->rcd->flow_queue);
  spin_unlock_irqrestore(&ctx->rcd->exp_lock, flags);
  tid_rdma_schedule_tid_wakeup(fqp);
}

// --- QP ops (the QP's own thread) -------------------------------------------

// The send engine building a segment (hfi1_build_tid_rdma_read_req /
// hfi1_tid_write_alloc_resources): s_lock, hfi1_kern_setup_hw_flow.
void OpSetup(Participant* p, QpSlot* s, bool retry) {
  rvt_qp* qp = s->qp;
  ContextState* ctx = s->ctx;
  unsigned long flags;
  p->doing.store(retry ? "retry setup (s_lock -> hfi1_kern_setup_hw_flow)"
                       : "setup (s_lock -> hfi1_kern_setup_hw_flow)",
                 std::memory_order_relaxed);
  spin_lock_irqsave(&qp->s_lock, flags);
  const bool already = qp->priv->flow_state.index < RXE_NUM_TID_FLOWS;
  const int ret = hfi1_kern_setup_hw_flow(ctx->rcd, qp);
  // The request layer keeps wanting a flow until it has one; the send engine
  // (hfi1_model_send_engine, run by a worker after a wakeup) then gets it.
  qp->priv->model_req.wants_flow = ret != 0;
  spin_lock(&ctx->rcd->exp_lock);  // IRQs are off under s_lock
  Judge(p, CheckSetupResult(*ctx, qp, ret), retry ? "retry setup" : "setup");
  CheckCtx(p, *ctx, retry ? "retry setup" : "setup");
  spin_unlock(&ctx->rcd->exp_lock);
  spin_unlock_irqrestore(&qp->s_lock, flags);
  if (!retry) {
    p->Count(ret == 0 ? kSetupOk : kSetupEagain);
  } else if (already) {
    p->Count(kGrantedByWakeup);
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
  MaybeYield(run->yield.get());
  const u8 after = qp->priv->flow_state.index;
  spin_unlock_irqrestore(&qp->s_lock, flags);
  if (before >= RXE_NUM_TID_FLOWS || before != after) {
    FailWith(Finding{kIdUse, absl::StrFormat("qp %u, owner of a flow, saw flow_state.index %u "
                                           "then %u while holding its s_lock",
                                           qp->qp_num, before, after)},
             p->name);
  }
  CheckCtxLocked(p, s->ctx, "use");
  p->Count(kUses);
}

// A sync point or the last completion: s_lock, hfi1_kern_clear_hw_flow.
void OpRelease(Participant* p, QpSlot* s) {
  rvt_qp* qp = s->qp;
  ContextState* ctx = s->ctx;
  unsigned long flags;
  p->doing.store("release (s_lock -> hfi1_kern_clear_hw_flow)", std::memory_order_relaxed);
  spin_lock_irqsave(&qp->s_lock, flags);
  hfi1_kern_clear_hw_flow(ctx->rcd, qp);
  spin_lock(&ctx->rcd->exp_lock);
  if (qp->priv->flow_state.index != RXE_NUM_TID_FLOWS) {
    FailWith(Finding{kIdClear, absl::StrFormat("hfi1_kern_clear_hw_flow(qp %u) left it owning flow %u",
                                           qp->qp_num, qp->priv->flow_state.index)},
             p->name);
  }
  CheckCtx(p, *ctx, "release");
  spin_unlock(&ctx->rcd->exp_lock);
  spin_unlock_irqrestore(&qp->s_lock, flags);
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
      FailWith(Finding{kIdSetup, absl::StrFormat("qp %u owns flow but its send engine still "
                                                "wants one",
                                                qp->qp_num)},
               p->name);
    }
    p->Count(kGrantedByWakeup);
    s->state = QpState::kOwned;
  }
  CheckCtxLocked(p, s->ctx, "poll");
}

// QP error while waiting: flush_qp_waiters under s_lock; the request layer
// stops wanting a flow in the same critical section.
void OpGiveUp(Participant* p, Run* run, QpSlot* s) {
  rvt_qp* qp = s->qp;
  ContextState* ctx = s->ctx;
  unsigned long flags;
  p->doing.store("give up (s_lock -> flush_qp_waiters)", std::memory_order_relaxed);
  spin_lock_irqsave(&qp->s_lock, flags);
  const bool granted = qp->priv->flow_state.index < RXE_NUM_TID_FLOWS;
  if (!granted) {
    flush_qp_waiters(qp);
    qp->priv->model_req.wants_flow = false;
  }
  spin_unlock_irqrestore(&qp->s_lock, flags);
  if (granted) {
    p->Count(kGrantedByWakeup);
    s->state = QpState::kOwned;
    CheckCtxLocked(p, ctx, "give up (already granted)");
    return;
  }
  p->Count(kGiveUp);
  s->state = QpState::kIdle;
  CheckCtxLocked(p, ctx, "give up (flush)", qp, 0);
  // The kernel does not pass the wakeup on here: a flushed head that had
  // been woken takes the wakeup with it (docs/stress.md).
  if (run->config.flush_handoff) WakeFlowQueueHead(ctx);
}

void OpRarrWait(Participant* p, QpSlot* s) {
  p->doing.store("rarr wait (s_lock, exp_lock -> queue on rarr_queue)", std::memory_order_relaxed);
  caller_rarr_wait(s->qp);
  p->Count(kRarrWaits);
  s->state = QpState::kOwnedRarr;
  CheckCtxLocked(p, s->ctx, "rarr wait", s->qp, 'r');
}

void OpRarrGrant(Participant* p, QpSlot* s) {
  p->doing.store("rarr grant (dequeue from rarr_queue, wake its head)", std::memory_order_relaxed);
  caller_rarr_grant(s->qp);
  p->Count(kRarrGrants);
  s->state = QpState::kOwned;
  CheckCtxLocked(p, s->ctx, "rarr grant", s->qp, 0);
}

void OpRarrRelease(Participant* p, QpSlot* s) {
  p->doing.store("rarr release (wake the head of rarr_queue)", std::memory_order_relaxed);
  caller_rarr_release(s->qp);
  p->Count(kRarrReleases);
  CheckCtxLocked(p, s->ctx, "rarr release");
}

void OpFlushRarr(Participant* p, QpSlot* s) {
  p->doing.store("flush a rarr waiter (s_lock -> flush_qp_waiters)", std::memory_order_relaxed);
  caller_flush_wait(s->qp);
  p->Count(kRarrFlushes);
  s->state = QpState::kOwned;
  CheckCtxLocked(p, s->ctx, "flush rarr wait", s->qp, 0);
}

void OpResyncAck(Participant* p, QpSlot* s) {
  p->doing.store("RESYNC ack (s_lock, resync = false)", std::memory_order_relaxed);
  caller_clear_resync(s->qp);
  p->Count(kResyncAcks);
  CheckCtxLocked(p, s->ctx, "resync ack");
}

}  // namespace

// --- Bare reservations (any harness thread) ---------------------------------

void BareReserve(Participant* p, ContextState* ctx, int last) {
  unsigned long flags;
  p->doing.store("bare reserve (exp_lock -> kern_reserve_flow)", std::memory_order_relaxed);
  spin_lock_irqsave(&ctx->rcd->exp_lock, flags);
  const int ret = kern_reserve_flow(ctx->rcd, last);
  Judge(p, CheckBareReserve(*ctx, last, ret, p->index), "bare reserve");
  if (ret >= 0) {
    ctx->bare_mask |= 1UL << ret;
    ctx->bare_owner[ret] = p->index;
    p->bare.emplace_back(ctx, ret);
  }
  CheckCtx(p, *ctx, "bare reserve");
  spin_unlock_irqrestore(&ctx->rcd->exp_lock, flags);
  p->Count(ret >= 0 ? kBareReserved : kBareEagainFull);
}

void BareRelease(Participant* p, size_t i) {
  ContextState* ctx = p->bare[i].first;
  const int flow = p->bare[i].second;
  p->bare.erase(p->bare.begin() + static_cast<std::ptrdiff_t>(i));
  unsigned long flags;
  p->doing.store("bare release (exp_lock -> clear_bit, wake head)", std::memory_order_relaxed);
  spin_lock_irqsave(&ctx->rcd->exp_lock, flags);
  if (!((ctx->bare_mask >> flow) & 1) || ctx->bare_owner[flow] != p->index) {
    FailWith(Finding{kIdOwnership, absl::StrFormat("harness thread %d releases flow %d, which the "
                                           "harness table says it does not hold (mask 0x%x)",
                                           p->index, flow, ctx->bare_mask)},
             p->name);
  }
  clear_bit(flow, &ctx->rcd->flow_mask);
  ctx->bare_mask &= ~(1UL << flow);
  CheckCtx(p, *ctx, "bare release");
  rvt_qp* fqp = first_qp(ctx->rcd, &ctx->rcd->flow_queue);
  spin_unlock_irqrestore(&ctx->rcd->exp_lock, flags);
  tid_rdma_schedule_tid_wakeup(fqp);
  p->Count(kBareReleased);
}

namespace {

// A preferred flow as callers pass it: mostly a flow index (often one just
// used), sometimes "don't care" (32) or out of range.
int PickLast(Rng* rng) {
  const uint32_t r = rng->Below(100);
  if (r < 80) return static_cast<int>(rng->Below(RXE_NUM_TID_FLOWS));
  if (r < 95) return RXE_NUM_TID_FLOWS;
  return r < 98 ? -1 : 40;
}

void BareOp(Run* run, Participant* p, int limit) {
  const bool reserve = p->bare.empty() || (static_cast<int>(p->bare.size()) < limit &&
                                           p->rng.Chance(0.75));
  if (reserve) {
    ContextState* ctx = run->contexts[p->rng.Below(run->contexts.size())].get();
    BareReserve(p, ctx, PickLast(&p->rng));
  } else {
    BareRelease(p, p->rng.Below(static_cast<uint32_t>(p->bare.size())));
  }
}

void QpOp(Run* run, Participant* p, QpSlot* s) {
  const uint32_t r = p->rng.Below(100);
  switch (s->state) {
    case QpState::kIdle:
      if (r < 92) OpSetup(p, s, /*retry=*/false);
      else OpResyncAck(p, s);
      break;
    case QpState::kOwned:
      if (r < 40) OpUse(p, run, s);
      else if (r < 75) OpRelease(p, s);
      else if (r < 85) OpRarrWait(p, s);
      else if (r < 95) OpRarrRelease(p, s);
      else OpResyncAck(p, s);
      break;
    case QpState::kWaitingFlow:
      if (r < 75) OpPoll(p, s);
      else if (r < 88) OpGiveUp(p, run, s);
      else OpSetup(p, s, /*retry=*/true);
      break;
    case QpState::kOwnedRarr:
      if (r < 30) OpUse(p, run, s);
      else if (r < 70) OpRarrGrant(p, s);
      else if (r < 90) OpFlushRarr(p, s);
      else OpResyncAck(p, s);
      break;
  }
}

void Finish(Run* run, Participant* p) {
  p->ops_done++;
  p->Count(kOps);
  run->Beat();
}

// The end of the run: release everything, then rounds until every waiter
// was granted (and released), then the final checks.
void Drain(Run* run, Participant* p) {
  p->doing.store("drain: releasing bare flows and rarr waits", std::memory_order_relaxed);
  while (!p->bare.empty()) BareRelease(p, p->bare.size() - 1);
  for (QpSlot& s : p->slots) {
    if (s.state == QpState::kOwnedRarr) OpRarrGrant(p, &s);
  }
  for (;;) {
    for (QpSlot& s : p->slots) {
      if (s.state == QpState::kWaitingFlow) OpPoll(p, &s);
      if (s.state == QpState::kOwned) OpRelease(p, &s);
    }
    p->doing.store("drain: parked between rounds", std::memory_order_relaxed);
    run->Beat();
    if (!run->barrier->Arrive([run] { return DrainRound(run); })) break;
  }
  p->doing.store("drain: parked for the final checks", std::memory_order_relaxed);
  run->barrier->Arrive([run] { return FinalPoint(run); });
  p->doing.store("done", std::memory_order_relaxed);
}

}  // namespace

void OpThreadMain(Run* run, Participant* p) {
  lockcheck::SetThreadName(p->name.c_str());
  BindThreadStream(run->yield.get(), static_cast<uint64_t>(p->index));
  const int every = run->config.quiescent_every;
  const int bare_limit = run->config.bare_per_thread;
  for (;;) {
    for (int k = 0; k < every && (p->ops_limit == 0 || p->ops_done < p->ops_limit); ++k) {
      if (bare_limit > 0 && p->rng.Below(4) == 0) {
        BareOp(run, p, bare_limit);
      } else {
        QpOp(run, p, &p->slots[p->rng.Below(static_cast<uint32_t>(p->slots.size()))]);
      }
      Finish(run, p);
    }
    p->doing.store("parked at a quiescent point", std::memory_order_relaxed);
    run->Beat();
    if (!run->barrier->Arrive([run] { return QuiescentPoint(run); })) break;
  }
  Drain(run, p);
}

// The receive interrupt: each op runs as an emulated hardirq handler, so
// exp_lock (and s_lock, which RESYNC takes) are used in hardirq context and
// lockcheck reports any acquisition of them with IRQs on.
void IrqThreadMain(Run* run, Participant* p) {
  lockcheck::SetThreadName(p->name.c_str());
  BindThreadStream(run->yield.get(), static_cast<uint64_t>(p->index));
  constexpr int kIrqBareLimit = 4;
  for (;;) {
    if (run->barrier->pause_requested()) {
      p->doing.store("parked at a quiescent point", std::memory_order_relaxed);
      if (!run->barrier->Arrive([run] { return QuiescentPoint(run); })) break;
      continue;
    }
    {
      lockcheck::HardirqScope irq;
      if (p->rng.Below(100) < 60) {
        BareOp(run, p, kIrqBareLimit);
      } else {
        // RESYNC for a random QP of any thread (hfi1_rc_rcv_tid_rdma_resync):
        // mostly the generation the peer would send next, so it is accepted.
        const uint32_t j = p->rng.Below(static_cast<uint32_t>(run->all_qps.size()));
        rvt_qp* qp = run->all_qps[j];
        p->doing.store("RESYNC (s_lock -> exp_lock)", std::memory_order_relaxed);
        unsigned long flags;
        spin_lock_irqsave(&qp->s_lock, flags);
        const u32 g = qp->priv->flow_state.generation;
        spin_unlock_irqrestore(&qp->s_lock, flags);
        u32 gen;
        if (g == KERN_GENERATION_RESERVED) {
          gen = static_cast<u32>(p->rng.Next()) & GENERATION_MASK;
          if (gen == KERN_GENERATION_RESERVED) gen = 0;
        } else {
          gen = p->rng.Chance(0.8) ? kern_flow_generation_next(g) : g;
        }
        const u32 psn = ((gen << HFI1_KDETH_BTH_SEQ_SHIFT) - 1) & PSN_MASK;
        const bool accepted = caller_resync(qp, psn);
        p->Count(kResyncs);
        if (accepted) p->Count(kResyncsAccepted);
        CheckCtxLocked(p, run->qp_contexts[j], "RESYNC");
      }
    }
    Finish(run, p);
  }
  Drain(run, p);
}

}  // namespace stress
}  // namespace flowcheck
