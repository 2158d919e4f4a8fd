// MUST NOT COMPILE: flow_mask is written without rcd->exp_lock.
#include "lockcheck/testdata/kern_reserve_flow_decl.h"

void clear_flow_bit_buggy(struct hfi1_ctxtdata *rcd, int idx) {
  rcd->flow_mask &= ~(1UL << idx);
}
