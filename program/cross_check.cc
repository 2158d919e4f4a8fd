// program/cross_check.cc: see cross_check.h.
#include "program/cross_check.h"

#include "common/strings.h"
#include "core/bitops.h"

namespace flowcheck {
namespace program {

void CrossCheck(Run* run, ContextState* ctx) {
  int bare_claims = 0;
  for (const auto& p : run->participants) {
    for (const QpSlot& s : p->slots) {
      if (s.ctx != ctx) continue;
      const u32 idx = s.qp->priv->flow_state.index;
      const char q = QueueOf(*ctx, s.qp);
      const bool owns = idx < RXE_NUM_TID_FLOWS;
      bool ok = false;
      switch (s.state) {
        case QpState::kIdle: ok = !owns && q == 0; break;
        case QpState::kOwned: ok = owns && q == 0; break;
        case QpState::kWaitingFlow: ok = (!owns && q == 'f') || (owns && q == 0); break;
        case QpState::kOwnedRarr: ok = owns && q == 'r'; break;
      }
      if (!ok) {
        const char* queue = q == 'f' ? "flow_queue" : q == 'r' ? "rarr_queue" : "none";
        FailWith(Finding{kIdOwnership,
                         flowcheck::StrFormat(
                             "%s believes qp %u %s, but the model says: flow index "
                             "%u, queue %s",
                             p->name.c_str(), s.qp->qp_num, QpStateName(s.state), idx, queue)},
                 "the quiescent-point leader");
      }
    }
    for (const auto& b : p->bare) {
      if (b.first != ctx) continue;
      ++bare_claims;
      if (!((ctx->bare_mask >> b.second) & 1) || ctx->bare_owner[b.second] != p->index) {
        FailWith(
            Finding{kIdOwnership, flowcheck::StrFormat("%s believes it holds flow %d of context "
                                                       "%u, the harness table disagrees",
                                                       p->name.c_str(), b.second, ctx->rcd->ctxt)},
            "the quiescent-point leader");
      }
    }
  }
  if (bare_claims != static_cast<int>(hweight_long(ctx->bare_mask))) {
    FailWith(
        Finding{kIdOwnership, flowcheck::StrFormat("the harness table holds flows 0x%lx but the "
                                                   "threads claim %d",
                                                   ctx->bare_mask, bare_claims)},
        "the quiescent-point leader");
  }
}

}  // namespace program
}  // namespace flowcheck
