// core/invariants_flow.cc: F1-F6 (docs/kernel-invariants.md, "Flows (F1-F6)"), hardware flows and generations.
// The expected register values and the generation arithmetic come from the
// reference formulas (core/reference.h), not from the model, so the two can
// disagree.
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "common/strings.h"
#include "core/invariants_internal.h"
#include "core/reference.h"
#include "lockcheck/lockdep.h"

namespace flowcheck {
namespace internal {
namespace {

using reference::RegisterValue;
constexpr int kFlows = reference::kNumFlows;
constexpr u32 kReserved = reference::kReservedGeneration;
constexpr u32 kNoFlow = reference::kNoFlow;  // flow_state.index of a QP without a flow

// The per-flow conditions F3 and F4 report on. CheckFlows evaluates them
// twice - for all 32 flows to pick the flows worth a look, then in the
// bodies that say what is wrong - so they are written once, here.
using FlowClearRecord = std::remove_reference_t<decltype(hfi1_flow_audit::clear[0])>;
// F3: a free flow whose register is not the released value.
bool FreeRegisterWrong(bool reserved, u64 reg) {
  return !reserved && reg != RegisterValue(kReserved);
}
// F4: the last release did not move the generation to next(old).
bool ReleaseWrong(const FlowClearRecord& clr) {
  return clr.clears > 0 && clr.new_gen != reference::NextGeneration(clr.old_gen);
}
// F4: RESERVED or wider than 20 bits; what it means depends on the owners.
bool GenerationSuspect(u32 gen) { return gen >= kReserved; }

// The fields of a QP the flow checks read, all written under exp_lock.
struct QpFlow {
  const rvt_qp* qp;
  u32 index, generation, psn, resync_saved;
};

// The QPs claiming each flow, in QP order: one index list per flow, linked
// through one array. No container per flow: this runs after every fuzz step
// and must not allocate (up to 16 QPs) nor construct 32 vectors.
class FlowOwners {
 public:
  explicit FlowOwners(absl::Span<const QpFlow> all) : all_(all), next_(all.size(), -1) {
    for (int f = 0; f < kFlows; ++f) first_[f] = -1, count_[f] = 0;
    for (size_t j = all.size(); j-- > 0;) {  // backwards: each list ends up in QP order
      const u32 f = all[j].index;
      if (f < kFlows) {
        next_[j] = first_[f];
        first_[f] = static_cast<int>(j);
        ++count_[f];
      }
    }
  }
  size_t count(int flow) const { return count_[flow]; }
  template <typename Fn>
  void ForEach(int flow, Fn fn) const {
    for (int j = first_[flow]; j >= 0; j = next_[j]) fn(all_[j]);
  }

 private:
  absl::Span<const QpFlow> all_;
  absl::InlinedVector<int, 16> next_;
  int first_[kFlows];
  size_t count_[kFlows];
};

}  // namespace

void CheckFlows(const hfi1_ctxtdata& rcd, absl::Span<rvt_qp* const> qps,
                const CheckOptions& options, bool bitmap_only, Collector* c) {
  const unsigned long mask = rcd.flow_mask;
  const unsigned long harness = options.harness_reserved_flows;

  // Inline size: this runs after every fuzz step and must not allocate in
  // the common case (a few QPs).
  absl::InlinedVector<QpFlow, 16> all;
  for (const rvt_qp* qp : qps) {
    const tid_flow_state& fs = qp->priv->flow_state;
    QpFlow q{qp, fs.index, fs.generation, fs.psn, qp->priv->model_resync_saved_gen};
    all.push_back(q);
    if (q.index > kNoFlow) {
      c->Add(Invariant::kF1, Severity::kViolation,
             "qp %u: flow_state.index %u is neither a flow (0..31) nor 32 (none)",
             qp->qp_num, q.index);
    }
  }
  const FlowOwners owners(all);

  // The flows each per-flow body below can say something about, as bit
  // masks, so that the bodies run for those flows only and in flow order:
  // the output is exactly that of running them for every flow (a body adds
  // nothing for a flow outside its mask), and the common case - a correct
  // state after a fuzz step - costs a few word operations instead of 32
  // iterations with spilled loop state.
  uint64_t owned = 0, multi = 0;
  for (const QpFlow& q : all) {
    if (q.index < kFlows) {
      const uint64_t bit = uint64_t{1} << q.index;
      multi |= owned & bit;
      owned |= bit;
    }
  }
  constexpr uint64_t kAll = (uint64_t{1} << kFlows) - 1;
  const uint64_t reserved_bits = mask & kAll;
  const uint64_t claimed = owned | (harness & kAll);
  // F1 reports: reserved with no claim, more than one claim, or a claim on
  // a free flow.
  uint64_t f1 = (reserved_bits & ~claimed) | multi | (owned & harness) |
                (~reserved_bits & claimed & kAll);

  // F1: bitmap <-> owners.
  if ((mask >> kFlows) != 0) {
    c->Add(Invariant::kF1, Severity::kViolation, "flow_mask 0x%lx has bits above 31 set", mask);
  }
  for (; f1 != 0; f1 &= f1 - 1) {
    const int i = __builtin_ctzll(f1);
    const bool reserved = ((mask >> i) & 1) != 0;
    const bool by_harness = ((harness >> i) & 1) != 0;
    const size_t claims = owners.count(i) + (by_harness ? 1 : 0);
    if (reserved && claims == 0) {
      c->Add(Invariant::kF1, Severity::kViolation,
             "flow %d is reserved in flow_mask but no QP owns it (leaked)", i);
    } else if (claims > 1) {
      std::string who;
      if (c->formats()) {
        owners.ForEach(i, [&who](const QpFlow& q) {
          who += flowcheck::StrFormat("%sqp %u", who.empty() ? "" : ", ", q.qp->qp_num);
        });
        if (by_harness) who += ", the harness";
      }
      c->Add(Invariant::kF1, Severity::kViolation,
             "flow %d is owned %zu times: %s (handed out twice)", i, claims, who.c_str());
    }
    if (!reserved) {
      owners.ForEach(i, [c, i](const QpFlow& q) {
        c->Add(Invariant::kF1, Severity::kViolation,
               "flow %d is free in flow_mask but qp %u's flow_state.index says it owns it", i,
               q.qp->qp_num);
      });
      if (by_harness) {
        c->Add(Invariant::kF1, Severity::kViolation,
               "flow %d is free in flow_mask but the harness says it reserved it", i);
      }
    }
  }
  if (bitmap_only) return;

  // F2 reports on owned flows only; F3 and F4 on the conditions above.
  uint64_t f234 = owned;
  for (int i = 0; i < kFlows; ++i) {
    const u64 reg = rcd.rcv_tid_flow_table[i].load(std::memory_order_relaxed);
    const bool bad = FreeRegisterWrong(((reserved_bits >> i) & 1) != 0, reg) ||
                     ReleaseWrong(rcd.audit.clear[i]) ||
                     GenerationSuspect(rcd.flows[i].generation);
    f234 |= static_cast<uint64_t>(bad) << i;
  }
  for (; f234 != 0; f234 &= f234 - 1) {
    const int i = __builtin_ctzll(f234);
    const u32 flow_gen = rcd.flows[i].generation;
    const u64 reg = rcd.rcv_tid_flow_table[i].load(std::memory_order_relaxed);
    const bool reserved = ((mask >> i) & 1) != 0;
    const auto& clr = rcd.audit.clear[i];

    // F2: an owner's generation matches the flow's and the register.
    owners.ForEach(i, [&](const QpFlow& q) {
      if (q.generation != flow_gen) {
        c->Add(Invariant::kF2, Severity::kViolation,
               "qp %u owns flow %d with generation 0x%x but the flow's is 0x%x", q.qp->qp_num, i,
               q.generation, flow_gen);
      }
      if (q.generation == kReserved) {
        c->Add(Invariant::kF2, Severity::kUpstreamDivergence,
               "[R-7]/[R-3] qp %u owns flow %d with the RESERVED generation 0xfffff: header "
               "suppression is off and flow_state.generation reads as \"none\"",
               q.qp->qp_num, i);
      }
      if (reg != RegisterValue(q.generation)) {
        c->Add(Invariant::kF2, Severity::kViolation,
               "flow %d (owned by qp %u, generation 0x%x): register 0x%" PRIx64
               ", expected 0x%" PRIx64,
               i, q.qp->qp_num, q.generation, reg, RegisterValue(q.generation));
      }
    });
    // F3: a free flow's register is released (RESERVED, no suppression).
    if (FreeRegisterWrong(reserved, reg)) {
      c->Add(Invariant::kF3, Severity::kViolation,
             "free flow %d: register 0x%" PRIx64 ", expected 0x%" PRIx64, i, reg,
             RegisterValue(kReserved));
    }
    // F4: every release advanced the generation to next(old), never RESERVED.
    if (ReleaseWrong(clr)) {
      c->Add(Invariant::kF4, Severity::kViolation,
             "flow %d: release #%u moved the generation 0x%x -> 0x%x, expected 0x%x", i,
             clr.clears, clr.old_gen, clr.new_gen, reference::NextGeneration(clr.old_gen));
    }
    if (GenerationSuspect(flow_gen)) {
      if (flow_gen > kReserved) {
        c->Add(Invariant::kF4, Severity::kViolation, "flow %d: generation 0x%x is wider than 20 bits", i,
               flow_gen);
      } else if (owners.count(i) == 0) {  // RESERVED, and no owner to explain it
        if (clr.clears == 0) {
          c->Add(Invariant::kF4, Severity::kUpstreamDivergence,
                 "[R-7] flow %d starts with the RESERVED generation 0xfffff "
                 "(hfi1_kern_init_ctxt_generations does not filter its random value)",
                 i);
        } else {
          c->Add(Invariant::kF4, Severity::kViolation,
                 "flow %d: generation is RESERVED after %u release(s); next() never yields it",
                 i, clr.clears);
        }
      }
    }
  }

  // F5: the PSN budget; F6: the no-flow state.
  for (uint64_t f5 = owned; f5 != 0; f5 &= f5 - 1) {
    const int i = __builtin_ctzll(f5);
    owners.ForEach(i, [c, i](const QpFlow& q) {
      if (q.psn > reference::kMaxFlowPsn) {
        c->Add(Invariant::kF5, Severity::kViolation, "qp %u (flow %d): flow_state.psn %u > 2047",
               q.qp->qp_num, i, q.psn);
      }
    });
  }
  for (const QpFlow& q : all) {
    if (q.index != kNoFlow) continue;  // the QPs that own no flow, in QP order
    if (q.psn != 0) {
      c->Add(Invariant::kF6, Severity::kViolation, "qp %u owns no flow but flow_state.psn is %u",
             q.qp->qp_num, q.psn);
    }
    if (q.generation > kReserved) {
      c->Add(Invariant::kF6, Severity::kViolation,
             "qp %u owns no flow and its saved generation 0x%x is wider than 20 bits",
             q.qp->qp_num, q.generation);
    } else if (q.generation != kReserved && q.generation != q.resync_saved) {
      c->Add(Invariant::kF6, Severity::kViolation,
             "qp %u owns no flow but keeps generation 0x%x, which no RESYNC saved",
             q.qp->qp_num, q.generation);
    }
  }
}

}  // namespace internal
}  // namespace flowcheck
