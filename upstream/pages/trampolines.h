// upstream/pages/trampolines.h: included last by the generated C unit. The
// kernel's functions are static (and renamed upstream_<name> by the
// extractor); these are the unit's entry points, declared in
// upstream/pages/kernel_pages.h, named by KERNEL_PAGES_PREFIX (kernel_
// unless a mutant build sets it). They only forward.
#include "upstream/pages/kernel_pages.h"

static unsigned warnings;

static int kernel_pages_warn(int cond) {
  if (cond) warnings++;
  return cond;
}

unsigned KERNEL_PAGES_NAME(warn_count)(void) { return warnings; }
void KERNEL_PAGES_NAME(warn_reset)(void) { warnings = 0; }

u32 KERNEL_PAGES_NAME(find_phys_blocks_4k)(struct tid_rdma_flow *flow, struct page **pages,
                                           u32 npages, struct tid_rdma_pageset *list) {
  return upstream_tid_rdma_find_phys_blocks_4k(flow, pages, npages, list);
}

u32 KERNEL_PAGES_NAME(find_phys_blocks_8k)(struct tid_rdma_flow *flow, struct page **pages,
                                           u32 npages, struct tid_rdma_pageset *list) {
  return upstream_tid_rdma_find_phys_blocks_8k(flow, pages, npages, list);
}

u32 KERNEL_PAGES_NAME(flush_pages)(struct tid_rdma_pageset *list, u32 *idx, u32 pages, u32 sets) {
  return upstream_tid_flush_pages(list, idx, pages, sets);
}
