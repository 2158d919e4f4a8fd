// MUST NOT COMPILE: the exp_lock held is another context's.
#include "lockcheck/testdata/kern_reserve_flow_decl.h"

int setup_with_the_wrong_context(struct hfi1_ctxtdata *rcd, struct hfi1_ctxtdata *other) {
  unsigned long flags;
  spin_lock_irqsave(&other->exp_lock, flags);
  int ret = kern_reserve_flow(rcd, -1);
  spin_unlock_irqrestore(&other->exp_lock, flags);
  return ret;
}
