// upstream/diff/model_mirror.cc: see model_mirror.h. Compiled in the model
// instance: every core function named here is core's own model
// (diffmodel_..., upstream/diff/model_names.h is force-included).
#include "upstream/diff/model_mirror.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/callers.h"
#include "core/hfi1.h"
#include "core/oracle/world_reset.h"
#include "core/qp.h"
#include "core/tid_rdma.h"
#include "core/workqueue.h"
#include "lockcheck/spinlock.h"
#include "upstream/diff/state_diff.h"

#ifndef FLOWCHECK_UPSTREAM_DIFF_MODEL_NAMES_H_
#error "model_mirror.cc must be compiled with -include upstream/diff/model_names.h"
#endif

namespace flowcheck {
namespace diff {
namespace {

using oracle::Op;
using oracle::OpKind;

class CoreModelMirror : public oracle::Lockstep::Mirror {
 public:
  CoreModelMirror(int num_qps, uint64_t seed) : wq_("diff-core-model") {
    dd_ = hfi1_model_alloc_devdata(1, &wq_, seed);
    rcd_ = dd_->rcd[0].get();
    for (int i = 0; i < num_qps; ++i) {
      qps_.push_back(hfi1_model_create_qp(dd_.get(), static_cast<u32>(i + 1)));
    }
  }

  ~CoreModelMirror() override {
    for (rvt_qp* qp : qps_) hfi1_model_teardown_qp(qp);
    wq_.Stop();
    for (rvt_qp* qp : qps_) hfi1_model_free_qp(qp);
  }

  const char* name() const override { return "core's model"; }

  // As Lockstep::Reset: the same inline text (core/oracle/world_reset.h),
  // compiled here, calls core's model's init functions.
  void Reset(uint64_t seed) override { oracle::ResetWorld(dd_.get(), rcd_, qps_, seed); }

  int64_t Step(const Op& op) override {
    const bool uses_qp = op.kind != OpKind::kReserveFlow && op.kind != OpKind::kReleaseFlow &&
                         op.kind != OpKind::kRunWork;
    if (uses_qp && (op.qp < 0 || op.qp >= static_cast<int>(qps_.size()))) {
      std::fprintf(stderr, "diff: op out of domain: %s\n", oracle::OpToString(op).c_str());
      std::abort();
    }
    rvt_qp* qp = uses_qp ? qps_[op.qp] : nullptr;
    switch (op.kind) {
      case OpKind::kSetupHwFlow: return caller_setup_hw_flow(qp);
      case OpKind::kClearHwFlow: caller_clear_hw_flow(qp); return 0;
      case OpKind::kFlushWait: caller_flush_wait(qp); return 0;
      case OpKind::kRarrWait: caller_rarr_wait(qp); return 0;
      case OpKind::kRarrGrant: return caller_rarr_grant(qp);
      case OpKind::kRarrRelease: caller_rarr_release(qp); return 0;
      case OpKind::kSetWantsFlow: caller_set_wants_flow(qp, op.arg != 0); return 0;
      case OpKind::kResync: return caller_resync(qp, static_cast<u32>(op.arg));
      case OpKind::kClearResync: caller_clear_resync(qp); return 0;
      case OpKind::kReserveFlow: return caller_reserve_flow(rcd_, static_cast<int>(op.arg));
      case OpKind::kReleaseFlow: caller_release_flow(rcd_, static_cast<int>(op.arg)); return 0;
      case OpKind::kRunWork: return wq_.RunOne();
    }
    return 0;
  }

  void Compare(oracle::Lockstep& kernel, std::vector<std::string>* diffs) override {
    std::vector<rvt_qp*> kernel_qps;
    for (int i = 0; i < kernel.num_qps(); ++i) kernel_qps.push_back(kernel.qp(i));
    ReadWorld(kernel.rcd(), kernel_qps, kernel.wq(), &kernel_state_);
    ReadWorld(rcd_, qps_, wq_, &core_state_);
    if (SameWorld(kernel_state_, core_state_)) return;
    DescribeDifferences(kernel_state_, core_state_, diffs);
  }

 private:
  WorldState kernel_state_, core_state_;  // scratch (too big for the stack of a fuzz step)
  workqueue_struct wq_;
  std::unique_ptr<hfi1_devdata> dd_;
  hfi1_ctxtdata* rcd_ = nullptr;
  std::vector<rvt_qp*> qps_;
};

}  // namespace

std::unique_ptr<oracle::Lockstep::Mirror> MakeCoreModelMirror(int num_qps, uint64_t seed) {
  return std::make_unique<CoreModelMirror>(num_qps, seed);
}

}  // namespace diff
}  // namespace flowcheck
