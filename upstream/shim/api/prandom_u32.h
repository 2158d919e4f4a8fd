// upstream/shim/api/prandom_u32.h: the kernel's prandom_u32() (before 6.2,
// where get_random_u32() replaced it; upstream/shim/apis.txt), included by
// the generated unit when its text calls it. It draws from the same
// per-context source as get_random_u32.h: the generations a tree's
// hfi1_kern_init_ctxt_generations picks do not depend on which spelling the
// tree uses.
#ifndef FLOWCHECK_UPSTREAM_SHIM_API_PRANDOM_U32_H_
#define FLOWCHECK_UPSTREAM_SHIM_API_PRANDOM_U32_H_

u32 upstream_get_random_u32();
#define prandom_u32() upstream_get_random_u32()

#endif  // FLOWCHECK_UPSTREAM_SHIM_API_PRANDOM_U32_H_
