// report_example: the README's sample report. Two threads take a QP's s_lock
// and its context's exp_lock in opposite orders, one after the other (no
// deadlock happens); the default handler prints the inversion and aborts.
//
//   bazel run //lockcheck:report_example
#include <thread>

#include "absl/base/attributes.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/spinlock.h"

namespace {

struct hfi1_ctxtdata {
  spinlock_t exp_lock;
};
struct rvt_qp {
  spinlock_t s_lock;
};

void hfi1_init_ctxt(hfi1_ctxtdata* rcd) { spin_lock_init(&rcd->exp_lock); }
void rvt_init_qp(rvt_qp* qp) { spin_lock_init(&qp->s_lock); }

// The driver's order: s_lock -> exp_lock.
ABSL_ATTRIBUTE_NOINLINE void hfi1_kern_setup_hw_flow(hfi1_ctxtdata* rcd, rvt_qp* qp) {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  spin_lock(&rcd->exp_lock);
  spin_unlock(&rcd->exp_lock);
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

// A bug: s_lock taken under exp_lock.
ABSL_ATTRIBUTE_NOINLINE void buggy_wakeup_under_exp_lock(hfi1_ctxtdata* rcd, rvt_qp* qp) {
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  spin_lock(&qp->s_lock);
  spin_unlock(&qp->s_lock);
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
}

}  // namespace

int main() {
  hfi1_ctxtdata rcd;
  rvt_qp qp;
  hfi1_init_ctxt(&rcd);
  rvt_init_qp(&qp);
  std::thread send([&] {
    lockcheck::SetThreadName("send-engine");
    hfi1_kern_setup_hw_flow(&rcd, &qp);
  });
  send.join();
  std::thread other([&] {
    lockcheck::SetThreadName("tid-wakeup");
    buggy_wakeup_under_exp_lock(&rcd, &qp);
  });
  other.join();
  return 0;
}
