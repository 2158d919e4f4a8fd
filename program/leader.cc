// program/leader.cc: see leader.h.
#include "program/leader.h"

#include "common/strings.h"
#include "core/tid_rdma.h"
#include "lockcheck/lockdep.h"
#include "program/cross_check.h"
#include "program/failure.h"

namespace flowcheck {
namespace program {

bool QuiescentPoint(Run* run) {
  DrainWork(run);
  for (auto& ctx : run->contexts) {
    unsigned long flags;
    spin_lock_irqsave(&ctx->rcd->exp_lock, flags);
    JudgeInto(&run->leader_divergences, CheckAtRest(*ctx), "a quiescent point",
              "the quiescent-point leader", run->config.strict);
    CrossCheck(run, ctx.get());
    spin_unlock_irqrestore(&ctx->rcd->exp_lock, flags);
  }
  ++run->quiescent_points;
  if (run->live != nullptr) run->live->quiescent.fetch_add(1, std::memory_order_relaxed);
  run->Beat();
  if (run->StopRequested()) {
    run->stopped_by = run->live->stop_signal.load(std::memory_order_relaxed);
    return false;
  }
  if (run->config.seconds > 0 && Elapsed(*run) >= run->config.seconds) return false;
  for (const auto& p : run->participants) {
    if (!p->irq && p->ops_limit > 0 && p->ops_done >= p->ops_limit) return false;
  }
  return true;
}

bool DrainRound(Run* run) {
  DrainWork(run);
  bool waiters = false;
  for (auto& ctx : run->contexts) {
    unsigned long flags;
    spin_lock_irqsave(&ctx->rcd->exp_lock, flags);
    JudgeInto(&run->leader_divergences, CheckNoLostWakeup(*ctx), "a drain round",
              "the drain leader (every flow released, every thread parked, work queue idle)", run->config.strict);
    if (!list_empty(&ctx->rcd->flow_queue.queue_head)) waiters = true;
    spin_unlock_irqrestore(&ctx->rcd->exp_lock, flags);
  }
  // A waiter granted after its thread last polled it is off the queue but
  // still to be seen and released: one more round.
  for (const auto& p : run->participants) {
    for (const QpSlot& s : p->slots) {
      if (s.state == QpState::kWaitingFlow || s.state == QpState::kOwnedRarr) waiters = true;
    }
  }
  run->Beat();
  if (waiters && ++run->drain_rounds > 10000) {
    Fail("invariant no-lost-wakeup", "waiters remain on flow_queue after 10000 drain rounds");
  }
  return waiters;
}

bool FinalPoint(Run* run) {
  DrainWork(run);
  for (auto& ctx : run->contexts) {
    unsigned long flags;
    spin_lock_irqsave(&ctx->rcd->exp_lock, flags);
    JudgeInto(&run->leader_divergences, CheckFinal(*ctx), "the end of the run",
              "the final check", run->config.strict);
    spin_unlock_irqrestore(&ctx->rcd->exp_lock, flags);
  }
  // Every wait that began (-EAGAIN) ended: granted (by a wakeup or a retry)
  // or given up. A wait still open here was never woken.
  const uint64_t began = Sum(*run, kSetupEagain);
  const uint64_t ended =
      Sum(*run, kGrantedByWakeup) + Sum(*run, kGrantedByRetry) + Sum(*run, kGiveUp);
  if (began != ended) {
    Fail("invariant no-lost-wakeup",
         flowcheck::StrFormat("%" PRIu64 " wait(s) began (setup returned -EAGAIN) but %" PRIu64
                              " ended (granted or "
                              "given up)",
                              began, ended));
  }
  for (const auto& p : run->participants) {
    for (const QpSlot& s : p->slots) {
      if (s.state != QpState::kIdle) {
        Fail("invariant final",
             flowcheck::StrFormat("%s ends with qp %u in state '%s'", p->name.c_str(), s.qp->qp_num,
                                  QpStateName(s.state)));
      }
    }
  }
  run->Beat();
  return true;
}

}  // namespace program
}  // namespace flowcheck
