// The control: the same call under exp_lock compiles.
#include "core/hfi1.h"
#include "core/tid_rdma.h"

int ReserveWithTheLock(hfi1_ctxtdata* rcd) {
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  int ret = kern_reserve_flow(rcd, RXE_NUM_TID_FLOWS);
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  return ret;
}
