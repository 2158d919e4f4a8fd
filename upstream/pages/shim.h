// upstream/pages/shim.h: included first by the generated C unit
// kernel_pages.c (//upstream/pages:kernel_pages); the user-space stand-ins for
// the kernel names the three page helpers use. Define only what they use: a
// name missing here fails the C build, which is how a new dependency of the
// kernel's text shows up.
#ifndef FLOWCHECK_UPSTREAM_PAGES_SHIM_H_
#define FLOWCHECK_UPSTREAM_PAGES_SHIM_H_

#include <stddef.h>

#include "upstream/pages/shim_types.h"

typedef uint16_t u16;

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
// chip.h: the largest buffer one RcvArray entry describes (2 MiB).
#define MAX_EXPECTED_BUFFER (2048 * 1024)
// tid_rdma.c defines it the same way above the functions (not extracted).
#define MAX_EXPECTED_PAGES (MAX_EXPECTED_BUFFER / PAGE_SIZE)

// The harness's pages are their addresses (see struct page in shim_types.h).
static inline void *page_address(const struct page *page) { return (void *)page; }

// linux/log2.h, for the values the helpers pass (n > 0 where rounded).
static inline int is_power_of_2(unsigned long n) { return n != 0 && (n & (n - 1)) == 0; }

static inline unsigned long rounddown_pow_of_two(unsigned long n) {
  return 1UL << (63 - __builtin_clzl(n));
}

// WARN_ON(cond): counts instead of printing a stack; the harness fails on any
// count. Returns cond as the kernel's does.
static int kernel_pages_warn(int cond);
#define WARN_ON(cond) kernel_pages_warn(!!(cond))

// The trace points (trace_tid.h): empty, but called, so their arguments are
// still type-checked and evaluated (flow->req->qp included) as in the driver.
static inline void trace_hfi1_tid_flow_page(struct rvt_qp *qp, struct tid_rdma_flow *flow,
                                            u32 index, char mtu8k, char v1, void *vaddr) {}
static inline void trace_hfi1_tid_pageset(struct rvt_qp *qp, u32 index, u16 idx,
                                          u16 count) {}

#endif  // FLOWCHECK_UPSTREAM_PAGES_SHIM_H_
