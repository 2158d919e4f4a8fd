// A kernel-shaped declaration for the compile-fail snippets next to it: the
// context, its exp_lock-guarded flow_mask, and kern_reserve_flow's lock
// precondition as the kernel writes it (docs/kernel.md, "Who must hold what").
#ifndef FLOWCHECK_LOCKCHECK_TESTDATA_KERN_RESERVE_FLOW_DECL_H_
#define FLOWCHECK_LOCKCHECK_TESTDATA_KERN_RESERVE_FLOW_DECL_H_

#include "lockcheck/spinlock.h"

struct hfi1_ctxtdata {
  spinlock_t exp_lock;
  unsigned long flow_mask ABSL_GUARDED_BY(exp_lock);
};

int kern_reserve_flow(struct hfi1_ctxtdata *rcd, int last) __must_hold(&rcd->exp_lock);

#endif  // FLOWCHECK_LOCKCHECK_TESTDATA_KERN_RESERVE_FLOW_DECL_H_
