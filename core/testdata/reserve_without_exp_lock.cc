// Must NOT compile: kern_reserve_flow is __must_hold(&rcd->exp_lock).
#include "core/hfi1.h"
#include "core/tid_rdma.h"

int ReserveWithoutTheLock(hfi1_ctxtdata* rcd) {
  return kern_reserve_flow(rcd, RXE_NUM_TID_FLOWS);
}
