// program/thread_loop.cc: the stress threads' main loops (see run_state.h).
//
// Op threads pick, with their seeded generator, one of their QPs and an op
// that fits what they believe its state is (QpState, qp_ops.cc) or, 25% of
// the time, a bare kern_reserve_flow / release cycle (bare_ops.cc); every
// --quiescent_every ops they park at a quiescent point. The receive
// interrupt does bare ops and RESYNCs in hardirq context until the op
// threads end the main phase. Then everyone drains.
#include "core/callers.h"
#include "core/tid_rdma.h"
#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"
#include "program/leader.h"
#include "program/op_check.h"
#include "program/ops.h"
#include "program/thread_loop.h"

namespace flowcheck {
namespace program {
namespace {

void Finish(Run* run, Participant* p) {
  p->ops_done++;
  p->Count(kOps);
  run->Beat();
}

// The end of the run: release everything, then rounds until every waiter
// was granted (and released), then the final checks.
void Drain(Run* run, Participant* p) {
  p->doing.store("drain: releasing bare flows and rarr waits", std::memory_order_relaxed);
  DrainRelease(p);
  for (;;) {
    DrainSlots(p);
    p->doing.store("drain: parked between rounds", std::memory_order_relaxed);
    run->Beat();
    if (!run->barrier->Arrive([run] { return DrainRound(run); })) break;
  }
  p->doing.store("drain: parked for the final checks", std::memory_order_relaxed);
  run->barrier->Arrive([run] { return FinalPoint(run); });
  p->doing.store("done", std::memory_order_relaxed);
}

// The RESYNC itself, for generation pick(current generation).
template <typename Pick>
void ResyncOn(Run* run, Participant* p, uint32_t j, Pick pick) {
  rvt_qp* qp = run->all_qps[j];
  p->doing.store("RESYNC (s_lock -> exp_lock)", std::memory_order_relaxed);
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  const u32 g = qp->priv->flow_state.generation;
  spin_unlock_irqrestore(&qp->s_lock, flags);
  const u32 gen = pick(g);
  const u32 psn = resync_psn_for_generation(gen);
  OpCheck check(p, run->qp_contexts[j], "RESYNC");
  const bool accepted = caller_resync(qp, psn, &check);
  p->Count(kResyncs);
  if (accepted) p->Count(kResyncsAccepted);
}

// RESYNC for a random QP of any thread (hfi1_rc_rcv_tid_rdma_resync):
// mostly the generation the peer would send next, so it is accepted.
void Resync(Run* run, Participant* p) {
  const uint32_t j = p->rng.Below(static_cast<uint32_t>(run->all_qps.size()));
  ResyncOn(run, p, j, [p](u32 g) -> u32 {
    if (g == KERN_GENERATION_RESERVED) {
      u32 gen = static_cast<u32>(p->rng.Next()) & GENERATION_MASK;
      return gen == KERN_GENERATION_RESERVED ? 0 : gen;
    }
    return p->rng.Chance(0.8) ? kern_flow_generation_next(g) : g;
  });
}

}  // namespace

void ResyncQp(Run* run, Participant* p, uint32_t j, bool next) {
  ResyncOn(run, p, j, [next](u32 g) -> u32 {
    if (g == KERN_GENERATION_RESERVED) return 0;
    return next ? kern_flow_generation_next(g) : g;
  });
}

void OpThreadMain(Run* run, Participant* p) {
  lockcheck::SetThreadName(p->name.c_str());
  BindThreadStream(run->yield.get(), static_cast<uint64_t>(p->index));
  const int every = run->config.quiescent_every;
  const int bare_limit = run->config.bare_per_thread;
  for (;;) {
    for (int k = 0; k < every && (p->ops_limit == 0 || p->ops_done < p->ops_limit) &&
                    !run->StopRequested();
         ++k) {
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
        Resync(run, p);
      }
    }
    Finish(run, p);
  }
  Drain(run, p);
}

}  // namespace program
}  // namespace flowcheck
