// fuzz/pure_executor.cc: ExecutePure (see executor.h). Each op calls core's
// pure functions and compares with the reference formulas
// (core/reference.h: NextGeneration, RegisterValue, MaskGeneration, MaskPsn;
// for kern_reserve_flow on an arbitrary flow_mask, FlowOracle::ReserveFlow)
// or, where there is none (bit operations, position_in_queue), with the
// one-line definition in docs/kernel.md; then with the reference's properties
// (gen-next: a generation never advances to RESERVED; reg-fields: the
// register's fields per the bit table), reported under their own ids.
#include <memory>

#include "common/strings.h"
#include "core/bitops.h"
#include "core/hfi1.h"
#include "core/oracle/flow_oracle.h"
#include "core/qp.h"
#include "core/reference.h"
#include "core/tid_rdma.h"
#include "core/workqueue.h"
#include "fuzz/executor.h"
#include "lockcheck/spinlock.h"

namespace flowcheck {
namespace fuzz {
namespace {

using oracle::FlowOracle;

// One device with one context for the register and reserve ops, created once
// (these ops set every bit of state they read before reading it).
struct PureDevice {
  workqueue_struct wq{"pure"};
  std::unique_ptr<hfi1_devdata> dd = hfi1_model_alloc_devdata(1, &wq, 0);
  hfi1_ctxtdata* rcd() { return dd->rcd[0].get(); }
};

PureDevice& Device() {
  static PureDevice* d = new PureDevice();  // never destroyed: no exit-time order issues
  return *d;
}

class PureRunner {
 public:
  PureRunner(const Program& p, const ExecOptions& options) : p_(p), options_(options) {}

  ExecResult Run() {
    for (index_ = 0; index_ < p_.ops.size() && result_.ok; ++index_) {
      const FuzzOp& op = p_.ops[index_];
      ++result_.calls;
      mask_before_ = mask_after_ = reference_mask_after_ = 0;  // only reserve_on_mask sets them
      switch (static_cast<PureOp>(op.code)) {
        case PureOp::kGeneration:
          Generation(static_cast<uint32_t>(op.arg));
          break;
        case PureOp::kRegister:
          Register(static_cast<uint32_t>(op.arg), op.qp);
          break;
        case PureOp::kReserveMask:
          ReserveMask(static_cast<uint32_t>(op.arg), static_cast<int>(op.arg2));
          break;
        case PureOp::kPosition:
          Position(static_cast<uint32_t>(op.arg), static_cast<uint32_t>(op.arg2));
          break;
        case PureOp::kMaskPsn:
          MaskPsn(static_cast<uint32_t>(op.arg));
          break;
        case PureOp::kBitops:
          Bitops(static_cast<uint64_t>(op.arg), static_cast<int>(op.arg2));
          break;
      }
      if (options_.on_step && result_.ok) {
        StepRecord rec;
        rec.op_index = index_;
        rec.call = DescribeOp(p_.format, op);
        rec.called = true;
        rec.model_ret = last_model_;
        rec.oracle_ret = last_reference_;
        rec.mask_before = mask_before_;
        rec.mask_after = mask_after_;
        options_.on_step(rec);
      }
    }
    return result_;
  }

 private:
  // Records the results; `diffs` non-empty or `violations` non-empty fails.
  // `describe` returns the call as text; it runs only on failure, so that the
  // passing case formats nothing.
  template <typename DescribeFn>
  void Judge(DescribeFn describe, int64_t model, int64_t reference, std::vector<std::string> diffs,
             std::vector<InvariantViolation> violations, bool has_masks = false) {
    last_model_ = model;
    last_reference_ = reference;
    if (model == reference && diffs.empty() && violations.empty()) return;
    const std::string call = describe();
    if (model != reference && diffs.empty()) {
      diffs.push_back(flowcheck::StrFormat("%s: model %" PRId64 " (0x%" PRIx64
                                           "), reference %" PRId64 " (0x%" PRIx64 ")",
                                           call.c_str(), model, model, reference, reference));
    }
    result_.ok = false;
    Failure& f = result_.failure;
    f.layer = diffs.empty() ? FailLayer::kInvariant : FailLayer::kOracle;
    f.op_index = index_;
    f.op = DescribeOp(p_.format, p_.ops[index_]);
    f.call = call;
    f.model_ret = model;
    f.oracle_ret = reference;
    f.diffs = std::move(diffs);
    f.violations = std::move(violations);
    f.has_masks = has_masks;
    f.mask_before = f.oracle_mask_before = mask_before_;
    f.mask_after = mask_after_;
    f.oracle_mask_after = reference_mask_after_;
  }

  // The reference properties a model value broke, as the failure lists them.
  static std::vector<InvariantViolation> AsViolations(
      std::vector<reference::PropertyViolation> broken) {
    std::vector<InvariantViolation> v;
    for (reference::PropertyViolation& x : broken) {
      v.push_back(InvariantViolation{IdOf(reference::kPropertyIds, x.property),
                                     Severity::kViolation, std::move(x.detail)});
    }
    return v;
  }

  void Generation(uint32_t g) {
    const uint32_t masked = mask_generation(g);
    if (masked != reference::MaskGeneration(g)) {
      Judge([&] { return flowcheck::StrFormat("mask_generation(0x%x)", g); }, masked,
            reference::MaskGeneration(g), {}, {});
      return;
    }
    const uint32_t next = kern_flow_generation_next(g);
    std::vector<reference::PropertyViolation> broken;
    reference::CheckNextGeneration(g, next, &broken);
    Judge([&] { return flowcheck::StrFormat("kern_flow_generation_next(0x%x)", g); }, next,
          reference::NextGeneration(g), {}, AsViolations(std::move(broken)));
  }

  void Register(uint32_t gen, int flow) {
    PureDevice& d = Device();
    kern_set_hw_flow(d.rcd(), gen, static_cast<u32>(flow));
    const uint64_t reg = read_uctxt_csr(d.dd.get(), 0, RCV_TID_FLOW_TABLE + 8 * flow);
    std::vector<reference::PropertyViolation> broken;
    reference::CheckRegisterFields(gen, reg, &broken);
    std::vector<InvariantViolation> v = AsViolations(std::move(broken));
    auto call = [gen, flow] {
      return flowcheck::StrFormat("kern_set_hw_flow(gen=0x%x, flow=%d)", gen, flow);
    };
    const uint64_t want = reference::RegisterValue(gen);
    if (reg != want) {
      Judge(call, static_cast<int64_t>(reg), static_cast<int64_t>(want), {}, std::move(v));
      return;
    }
    const uint32_t psn = read_r_next_psn(d.dd.get(), 0, static_cast<u8>(flow));
    Judge(
        [&] { return flowcheck::StrFormat("%s; read_r_next_psn(flow=%d)", call().c_str(), flow); },
        psn, reference::MaskPsn(static_cast<uint32_t>(want)), {}, std::move(v));
  }

  void ReserveMask(uint32_t mask, int last) {
    hfi1_ctxtdata* rcd = Device().rcd();
    unsigned long flags;
    spin_lock_irqsave(&rcd->exp_lock, flags);
    rcd->flow_mask = mask;
    const int got = kern_reserve_flow(rcd, last);
    const uint64_t after = rcd->flow_mask;
    spin_unlock_irqrestore(&rcd->exp_lock, flags);
    // The oracle brought to the same state: the harness holds every set bit.
    static FlowOracle* oracle = new FlowOracle({}, {});  // reset, not rebuilt, per op
    FlowOracle& o = *oracle;
    o.Reset({});
    for (int f = 0; f < oracle::kNumFlows; ++f) {
      if ((mask >> f) & 1) o.ReserveFlow(f);
    }
    const int want = o.ReserveFlow(last);
    mask_before_ = mask;
    mask_after_ = after;
    reference_mask_after_ = o.harness_flows();
    std::vector<std::string> diffs;
    if (after != reference_mask_after_) {
      diffs.push_back(flowcheck::StrFormat("flow_mask after: model 0x%" PRIx64
                                           ", reference 0x%" PRIx64,
                                           after, reference_mask_after_));
    }
    Judge(
        [&] {
          return flowcheck::StrFormat("kern_reserve_flow(flow_mask=0x%08x, last=%d)", mask, last);
        },
        got, want, std::move(diffs), {}, /*has_masks=*/true);
  }

  void Position(uint32_t enq, uint32_t deq) {
    hfi1_qp_priv priv;
    priv.tid_enqueue = enq;
    tid_queue queue = {};
    queue.dequeue = deq;
    const uint32_t got = position_in_queue(&priv, &queue);
    Judge(
        [&] {
          return flowcheck::StrFormat("position_in_queue(tid_enqueue=%u, dequeue=%u)", enq, deq);
        },
        got, static_cast<uint32_t>(enq - deq), {}, {});  // u32 arithmetic: wraps
  }

  void MaskPsn(uint32_t v) {
    Judge([&] { return flowcheck::StrFormat("mask_psn(0x%x)", v); }, mask_psn(v),
          reference::MaskPsn(v), {}, {});
  }

  void Bitops(uint64_t word, int nr) {
    const unsigned long w = word;
    std::vector<std::string> diffs;
    int ref_ffz = 64, ref_weight = 0;
    for (int b = 63; b >= 0; --b) {
      if (!((w >> b) & 1)) ref_ffz = b;
      ref_weight += (w >> b) & 1;
    }
    if (ffz(w) != static_cast<unsigned long>(ref_ffz)) {
      diffs.push_back(
          flowcheck::StrFormat("ffz(0x%lx): model %lu, reference %d", w, ffz(w), ref_ffz));
    }
    if (hweight_long(w) != static_cast<unsigned>(ref_weight)) {
      diffs.push_back(flowcheck::StrFormat("hweight_long(0x%lx): model %u, reference %d", w,
                                           hweight_long(w), ref_weight));
    }
    const bool was = (w >> nr) & 1;
    if (test_bit(nr, &w) != was) {
      diffs.push_back(flowcheck::StrFormat("test_bit(%d, 0x%lx): model %d, reference %d", nr, w,
                                           test_bit(nr, &w), was));
    }
    unsigned long set = w;
    const bool old = test_and_set_bit(nr, &set);
    if (old != was || set != (w | 1ul << nr)) {
      diffs.push_back(flowcheck::StrFormat(
          "test_and_set_bit(%d, 0x%lx): model %d -> 0x%lx, reference %d -> 0x%lx", nr, w, old, set,
          was, w | 1ul << nr));
    }
    unsigned long cleared = w;
    clear_bit(nr, &cleared);
    if (cleared != (w & ~(1ul << nr))) {
      diffs.push_back(flowcheck::StrFormat("clear_bit(%d, 0x%lx): model 0x%lx, reference 0x%lx", nr,
                                           w, cleared, w & ~(1ul << nr)));
    }
    Judge([&] { return flowcheck::StrFormat("bitops(0x%lx, nr=%d)", w, nr); }, 0, 0,
          std::move(diffs), {});
  }

  const Program& p_;
  const ExecOptions& options_;
  size_t index_ = 0;
  ExecResult result_;
  int64_t last_model_ = 0, last_reference_ = 0;
  uint64_t mask_before_ = 0, mask_after_ = 0, reference_mask_after_ = 0;
};

}  // namespace

ExecResult ExecutePure(const Program& p, const ExecOptions& options) {
  PureRunner runner(p, options);
  return runner.Run();
}

}  // namespace fuzz
}  // namespace flowcheck
