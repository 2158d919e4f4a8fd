// upstream/shim/api/get_random_u32.h: the kernel's get_random_u32() (6.1 and
// later; upstream/shim/apis.txt), included by the generated unit when its
// text calls it. The kernel's takes no argument; core's draws from a
// per-context seedable source: the trampoline of
// hfi1_kern_init_ctxt_generations (upstream/trampolines.h) names the context
// whose source the kernel's call draws from.
#ifndef FLOWCHECK_UPSTREAM_SHIM_API_GET_RANDOM_U32_H_
#define FLOWCHECK_UPSTREAM_SHIM_API_GET_RANDOM_U32_H_

u32 upstream_get_random_u32();
#define get_random_u32() upstream_get_random_u32()

#endif  // FLOWCHECK_UPSTREAM_SHIM_API_GET_RANDOM_U32_H_
