// core/kernel_idioms.h: the few kernel macros and helpers the RcvArray code
// of tid_rdma.c uses (linux/bits.h, minmax.h, log2.h, circ_buf.h, bug.h,
// hfi1's dd_dev_err), with the kernel's names, for core's mirror
// (core/tid_rdma_rcvarray.cc) and for the kernel's own text in upstream mode
// (upstream/shim/prelude.h includes core's headers).
#ifndef FLOWCHECK_CORE_KERNEL_IDIOMS_H_
#define FLOWCHECK_CORE_KERNEL_IDIOMS_H_

#include <cstdio>
#include <cstring>

#include "core/hfi1_constants.h"

#define BIT(nr) (1UL << (nr))
#define min_t(type, x, y) ((type)(x) < (type)(y) ? (type)(x) : (type)(y))
// linux/circ_buf.h
#define CIRC_CNT(head, tail, size) (((head) - (tail)) & ((size)-1))
#define CIRC_SPACE(head, tail, size) CIRC_CNT((tail), ((head) + 1), (size))

// linux/log2.h, for the powers of two the code passes (> 0).
inline int ilog2(u32 n) { return 31 - __builtin_clz(n); }

// asm-generic/bug.h: the condition's value; the model prints a WARN and
// goes on, as the kernel does (the harness's invariants judge the state).
#define WARN_ON_ONCE(condition)                                                   \
  ({                                                                              \
    const bool warn_on_ = static_cast<bool>(condition);                           \
    if (warn_on_) std::fprintf(stderr, "hfi1 model: WARN_ON_ONCE(%s)\n", #condition); \
    warn_on_;                                                                     \
  })

// hfi1's device error print.
#define dd_dev_err(dd, fmt, ...) \
  ((void)(dd), std::fprintf(stderr, "hfi1 model: " fmt "\n", ##__VA_ARGS__))

#endif  // FLOWCHECK_CORE_KERNEL_IDIOMS_H_
