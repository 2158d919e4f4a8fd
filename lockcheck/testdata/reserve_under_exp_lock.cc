// The control: the same code done right compiles, with every lock form the
// driver uses (irqsave, plain spin_lock with IRQs off, spin_lock_irq,
// trylock) and with lockdep_assert_held standing for __must_hold.
#include "lockcheck/lockdep.h"
#include "lockcheck/testdata/kern_reserve_flow_decl.h"

int hfi1_kern_setup_hw_flow_ok(struct hfi1_ctxtdata *rcd) {
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  int ret = kern_reserve_flow(rcd, -1);
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  return ret;
}

int flush_wait_ok(struct hfi1_ctxtdata *rcd) {
  spin_lock(&rcd->exp_lock);
  int ret = kern_reserve_flow(rcd, 0);
  spin_unlock(&rcd->exp_lock);
  spin_lock_irq(&rcd->exp_lock);
  ret += kern_reserve_flow(rcd, 1);
  spin_unlock_irq(&rcd->exp_lock);
  if (spin_trylock(&rcd->exp_lock)) {
    ret += kern_reserve_flow(rcd, 2);
    spin_unlock(&rcd->exp_lock);
  }
  return ret;
}

void clear_flow_bit_ok(struct hfi1_ctxtdata *rcd, int idx) {
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  rcd->flow_mask &= ~(1UL << idx);
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
}

// A callee that only asserts at run time still type-checks.
void clear_flow_bit_asserting(struct hfi1_ctxtdata *rcd, int idx) {
  lockdep_assert_held(&rcd->exp_lock);
  rcd->flow_mask &= ~(1UL << idx);
}
