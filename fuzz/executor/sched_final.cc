// fuzz/executor/sched_final.cc: State::Final (sched_state.h), the end of a
// sched_fuzz execution, on the controller after every logical thread ended
// (so everything they did happens before it): drain the work queue, judge
// the state at rest (no lost wakeup among it), then release everything and
// judge the final state. The checks are the ones the stress driver runs too
// (core/caller_checks.h: CheckAtRest, CheckFinal), shared, not copied.
#include "absl/strings/str_format.h"
#include "core/callers.h"
#include "core/list.h"
#include "fuzz/executor/hazards.h"
#include "fuzz/executor/sched_state.h"
#include "lockcheck/lockdep.h"
#include "core/caller_checks.h"

namespace flowcheck {
namespace fuzz {
namespace sched_exec {
namespace {

constexpr int kMaxDrainItems = 10000;
constexpr int kMaxTeardownRounds = 8;

// Runs work items until none is pending; the oracle follows while in step.
void DrainWork(State* st) {
  for (int n = 0; n < kMaxDrainItems && st->ls->wq().RunOne(); ++n) {
    if (st->in_sync && !st->oracle.RunOneWork()) {
      st->SetFail("oracle", "the end's drain: the model ran a work item, the oracle had none",
                  "");
      return;
    }
  }
  if (st->in_sync && st->oracle.RunOneWork()) {
    st->SetFail("oracle", "the end's drain: the oracle had a work item the model did not", "");
  }
}

// The stress checks' findings: failures, known hazards and divergences.
void Judge(State* st, const std::vector<flowcheck::Finding>& findings, const std::string& where) {
  for (const flowcheck::Finding& f : findings) {
    if (!st->r->ok) return;
    if (f.divergence) {
      if (st->options->strict) {
        // As core's InvariantViolation::ToString words it, so that the
        // report reads (and the crash signature groups) as any W5/F2 one.
        const std::string line = f.id + " upstream divergence: " + f.detail;
        st->SetFail("invariant " + f.id, where + ": upstream divergence (strict): " + line,
                    line + "\n");
      }
      continue;
    }
    if (f.id == flowcheck::kIdNoLostWakeup) {
      if (st->bare_release_with_waiters || st->waiter_gave_up) {
        // The harness released a bare flow while QPs waited (it wakes
        // nobody, by design), or a waiting QP's request stopped wanting its
        // flow (set_wants_flow false): a waiter may then be left by the
        // harness's doing, so whether a wakeup was lost is not judged.
        st->r->hazards.push_back(
            "no-lost-wakeup not judged: the program released a bare flow while QPs waited, or "
            "made a waiting QP stop wanting its flow");
        continue;
      }
      if (st->flushed_waiter) {
        const std::string kind = HazardKind(Hazard::kFlushStrandsWaiter);
        const std::string h =
            kind + ": a QP that had waited for a flow was flushed, and now " + f.detail;
        if (st->options->strict) {
          st->SetFail(kind, where + ": " + f.detail,
                      "A flush of a woken QP drops its wakeup: the next waiter is stranded "
                      "(a known kernel hazard, docs/kernel-hazards.md; a failure only with "
                      "--strict).\n");
        } else {
          st->r->hazards.push_back(h);
        }
        continue;
      }
    }
    st->SetFail("invariant " + f.id, where + ": " + f.detail, f.detail + "\n");
  }
}

}  // namespace

void State::Final() {
  // No HarnessScope here: every thread's run happens before this (AtEnd),
  // so TSan checks the teardown's accesses like any others.
  if (!r->ok) return;
  Event(-1, [] { return "end: every thread finished; running the pending work"; });
  DrainWork(this);
  flowcheck::ContextState ctx(rcd);
  ctx.qps = qps;
  unsigned long flags;
  spin_lock_irqsave(&ctx.rcd->exp_lock, flags);
  ctx.bare_mask = bare_mask;
  Judge(this, flowcheck::CheckAtRest(ctx), "at rest after the threads and their work");
  if (r->ok && in_sync) CompareState(ctx.rcd, [] { return std::string("at rest after the threads and their work"); });
  spin_unlock_irqrestore(&ctx.rcd->exp_lock, flags);
  if (!r->ok) return;

  // Teardown, as the driver's users would: the harness's flows back, then
  // every QP stops wanting a flow, is flushed off its queue and cleared;
  // clears wake waiters, whose work runs; until nothing is left.
  Event(-1, [] { return "end: releasing every flow, flushing and clearing every QP"; });
  for (ThreadState& t : th) {
    for (int f : t.bare) caller_release_flow(rcd, f);
    t.bare.clear();
  }
  for (int round = 0; round < kMaxTeardownRounds; ++round) {
    for (rvt_qp* qp : qps) {
      caller_set_wants_flow(qp, false);
      caller_flush_wait(qp);
      caller_clear_hw_flow(qp);
    }
    for (int n = 0; n < kMaxDrainItems && ls->wq().RunOne(); ++n) {
    }
  }
  spin_lock_irqsave(&ctx.rcd->exp_lock, flags);
  ctx.bare_mask = 0;
  Judge(this, flowcheck::CheckFinal(ctx), "at the end, everything released");
  spin_unlock_irqrestore(&ctx.rcd->exp_lock, flags);
}

}  // namespace sched_exec
}  // namespace fuzz
}  // namespace flowcheck
