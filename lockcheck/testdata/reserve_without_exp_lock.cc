// MUST NOT COMPILE: kern_reserve_flow called without rcd->exp_lock.
#include "lockcheck/testdata/kern_reserve_flow_decl.h"

int hfi1_kern_setup_hw_flow_buggy(struct hfi1_ctxtdata *rcd) {
  return kern_reserve_flow(rcd, -1);
}
