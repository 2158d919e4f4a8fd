// upstream/pages/shim_types.h: the kernel types the page helpers touch, as
// the hfi1 driver declares them (tid_rdma.h, rdmavt), reduced to the fields
// the three functions use. Shared by the C unit and the C++ harness, so both
// see one layout. Nothing here is kernel text; the widths of
// tid_rdma_pageset's bitfields are the kernel's (idx 8 bits, count 7 bits),
// so a value the kernel would truncate is truncated here too.
#ifndef FLOWCHECK_UPSTREAM_PAGES_SHIM_TYPES_H_
#define FLOWCHECK_UPSTREAM_PAGES_SHIM_TYPES_H_

#include <stdint.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t dma_addr_t;

// Pages per TID RDMA segment (256 KiB of 4 KiB pages): the size of a flow's
// pagesets[] array, the most sets a helper may write.
#define TID_RDMA_MAX_PAGES 64

// Opaque, as in the kernel: the harness's "struct page *" is the page's
// address itself (page_address() in shim.h returns it).
struct page;

// Only read by the trace points, through flow->req->qp.
struct rvt_qp {
  int unused;
};

struct tid_rdma_request {
  struct rvt_qp *qp;
};

struct tid_rdma_flow {
  struct tid_rdma_request *req;
};

// One set of physically contiguous pages: idx is the first page's index in
// pages[], count the number of pages, count == 0 a filler (idx not written).
struct tid_rdma_pageset {
  dma_addr_t addr : 48;
  u8 idx : 8;
  u8 count : 7;
  u8 mapped : 1;
};

#endif  // FLOWCHECK_UPSTREAM_PAGES_SHIM_TYPES_H_
