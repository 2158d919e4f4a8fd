// program/bare_ops.cc: flows reserved without a QP (see ops.h).
//
// Bare kern_reserve_flow / release cycles squeeze the 32 flows so that QPs
// queue on flow_queue and reservations hit -EAGAIN all the time. Each goes
// through caller_reserve_flow / caller_release_flow; the OpCheck records the
// flow in the context's harness table in the call's own critical section
// and checks it there. A bare release then wakes the head of flow_queue, as
// hfi1_kern_clear_hw_flow does after its release: the kernel has no bare
// release, and one without that wakeup would strand a waiter (a harness bug).
#include "core/callers.h"
#include "core/tid_rdma.h"
#include "program/op_check.h"
#include "program/ops.h"

namespace flowcheck {
namespace program {
namespace {

// A preferred flow as callers pass it: mostly a flow index (often one just
// used), sometimes "don't care" (32) or out of range.
int PickLast(Rng* rng) {
  const uint32_t r = rng->Below(100);
  if (r < 80) return static_cast<int>(rng->Below(RXE_NUM_TID_FLOWS));
  if (r < 95) return RXE_NUM_TID_FLOWS;
  return r < 98 ? -1 : 40;
}

}  // namespace

void BareReserve(Participant* p, ContextState* ctx, int last, bool state_check) {
  p->doing.store("bare reserve (exp_lock -> kern_reserve_flow)", std::memory_order_relaxed);
  OpCheck check(p, ctx, "bare reserve");
  check.set_state_check(state_check);
  const int ret = caller_reserve_flow(ctx->rcd, last, &check);
  p->Count(ret >= 0 ? kBareReserved : kBareEagainFull);
}

void BareRelease(Participant* p, size_t i) {
  ContextState* ctx = p->bare[i].first;
  const int flow = p->bare[i].second;
  p->bare.erase(p->bare.begin() + static_cast<std::ptrdiff_t>(i));
  p->doing.store("bare release (exp_lock -> clear_bit, wake head)", std::memory_order_relaxed);
  OpCheck check(p, ctx, "bare release");
  caller_release_flow(ctx->rcd, flow, &check);
  tid_rdma_schedule_tid_wakeup(check.head_to_wake());
  p->Count(kBareReleased);
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

// The bare ops' runners (ops.h).
bool RunBareReserve(Run* run, Participant* p, QpSlot*, const ListedOp& op) {
  BareReserve(p, run->contexts[op.a % run->contexts.size()].get(), op.b);
  return true;
}
bool RunBareRelease(Run*, Participant* p, QpSlot*, const ListedOp& op) {
  if (p->bare.empty()) return false;
  BareRelease(p, op.a % p->bare.size());
  return true;
}
bool RunResync(Run* run, Participant* p, QpSlot*, const ListedOp& op) {
  ResyncQp(run, p, static_cast<uint32_t>(op.a % run->all_qps.size()), /*next=*/true);
  return true;
}

}  // namespace program
}  // namespace flowcheck
