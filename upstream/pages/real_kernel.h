// upstream/pages/real_kernel.h: the table of the real kernel text's build
// (//upstream/pages:kernel_pages), for CheckCase. Upstream mode only.
#ifndef FLOWCHECK_UPSTREAM_PAGES_REAL_KERNEL_H_
#define FLOWCHECK_UPSTREAM_PAGES_REAL_KERNEL_H_

#include "upstream/pages/check.h"
#include "upstream/pages/kernel_pages.h"

namespace pages {

inline KernelPages RealKernel() {
  return KernelPages{"tid_rdma.c",          kernel_find_phys_blocks_4k, kernel_find_phys_blocks_8k,
                     kernel_flush_pages,    kernel_warn_count,          kernel_warn_reset};
}

}  // namespace pages

#endif  // FLOWCHECK_UPSTREAM_PAGES_REAL_KERNEL_H_
