// upstream/pages/kernel_pages.h: the kernel's page helpers as compiled from
// tid_rdma.c by //upstream/pages:kernel_pages (C), callable from C and C++.
//
// The three functions are the kernel's own text, verbatim (static there);
// these entry points only forward to them. A second build of the same unit
// with KERNEL_PAGES_PREFIX defined (the injected-bug tests' mutants) gives the
// entry points another prefix, so several builds link into one test.
//
// Contract (the kernel's, kept by the callers in tid_rdma.c): npages <= 64
// (TID_RDMA_MAX_PAGES, a 256 KiB segment), `list` has room for 64 sets,
// page addresses are never NULL, and `flow->req->qp` can be read (the trace
// points evaluate it). tid_flush_pages: *idx + pages <= 64 and room in
// `list` for what it appends. Functions return the new number of sets.
#ifndef FLOWCHECK_UPSTREAM_PAGES_KERNEL_PAGES_H_
#define FLOWCHECK_UPSTREAM_PAGES_KERNEL_PAGES_H_

#include "upstream/pages/shim_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KERNEL_PAGES_CAT2(a, b) a##b
#define KERNEL_PAGES_CAT(a, b) KERNEL_PAGES_CAT2(a, b)
#define KERNEL_PAGES_NAME(n) KERNEL_PAGES_CAT(KERNEL_PAGES_PREFIX, n)

// How an entry point of one build looks; the C++ side takes them as a table.
typedef u32 (*kernel_find_phys_blocks_fn)(struct tid_rdma_flow *flow, struct page **pages,
                                          u32 npages, struct tid_rdma_pageset *list);
typedef u32 (*kernel_flush_pages_fn)(struct tid_rdma_pageset *list, u32 *idx, u32 pages,
                                     u32 sets);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // FLOWCHECK_UPSTREAM_PAGES_KERNEL_PAGES_H_

// The entry points of the build named by KERNEL_PAGES_PREFIX (default
// kernel_). Outside the include guard: a test that links a mutant build too
// includes this header again with another prefix.
#ifndef KERNEL_PAGES_PREFIX
#define KERNEL_PAGES_PREFIX kernel_
#endif

#ifdef __cplusplus
extern "C" {
#endif

u32 KERNEL_PAGES_NAME(find_phys_blocks_4k)(struct tid_rdma_flow *flow, struct page **pages,
                                           u32 npages, struct tid_rdma_pageset *list);
u32 KERNEL_PAGES_NAME(find_phys_blocks_8k)(struct tid_rdma_flow *flow, struct page **pages,
                                           u32 npages, struct tid_rdma_pageset *list);
u32 KERNEL_PAGES_NAME(flush_pages)(struct tid_rdma_pageset *list, u32 *idx, u32 pages, u32 sets);

// How many times the kernel's WARN_ON fired in this build's text since the
// last reset (tid_rdma_find_phys_blocks_8k warns on an odd set count, which
// "cannot happen by design"). Not thread-safe: the fuzz target is single
// threaded.
unsigned KERNEL_PAGES_NAME(warn_count)(void);
void KERNEL_PAGES_NAME(warn_reset)(void);

#ifdef __cplusplus
}  // extern "C"
#endif
