// core/kernel_idioms.h: the few kernel macros and helpers the RcvArray code
// of tid_rdma.c uses (linux/bits.h, minmax.h, log2.h, circ_buf.h, bug.h,
// linux/compiler.h, linux/slab.h, hfi1's dd_dev_err), with the kernel's names, for core's mirror
// (core/tid_rdma_rcvarray.cc) and for the kernel's own text in upstream mode
// (upstream/shim/prelude.h includes core's headers).
#ifndef FLOWCHECK_CORE_KERNEL_IDIOMS_H_
#define FLOWCHECK_CORE_KERNEL_IDIOMS_H_

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/sanitizers.h"
#include "core/hfi1_constants.h"
#include "core/slab_cache.h"

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

// linux/compiler.h
#define likely(x) __builtin_expect(!!(x), 1)

// linux/slab.h, for the per-request flow arrays (hfi1_kern_exp_rcv_alloc_flows).
// The result converts to the caller's pointer type, as C's void * does. The
// memory is not zeroed (kmalloc's is not either): it is filled with a poison
// byte, so that a field the kernel's code forgets to set reads the same odd
// value in every run instead of whatever the heap held.
using gfp_t = unsigned int;
inline constexpr gfp_t GFP_KERNEL = 0xcc0, GFP_ATOMIC = 0xa20;
struct KmallocResult {
  void* p;
  template <typename T>
  operator T*() const {  // NOLINT: converts implicitly, as void * does in C
    return static_cast<T*>(p);
  }
};
// Freed blocks are kept for the next kmalloc_node of the same size, as the
// kernel's slab caches keep them (slab_cache.h): a harness that builds a
// fresh model for every controlled execution would otherwise pay the
// allocator for each flow array (under ASan an mmap, page faults and the
// quarantine: 80% of sched_fuzz's time). A kept block is poisoned for ASan,
// so a use after kfree is still reported, and is filled afresh when reused,
// so nothing carries over from its last owner. The fill is the allocator's,
// not the kernel code's: TSan does not check it as a write (it checked each
// byte of every QP's flow arrays in every controlled execution: 6% of a
// `--minimize` run). The kernel code's own accesses to the block are checked
// as before.
inline KmallocResult kmalloc_node(size_t size, gfp_t, int) {
  void* p = flowcheck::SlabTake(size);
  if (p != nullptr) {
    flowcheck::TsanIgnoreAccesses allocator_fill;
    std::memset(p, 0xa5, size);
  }
  return KmallocResult{p};
}
inline void kfree(const void* p) { flowcheck::SlabGive(const_cast<void*>(p)); }

// hfi1's device error print.
#define dd_dev_err(dd, fmt, ...) \
  ((void)(dd), std::fprintf(stderr, "hfi1 model: " fmt "\n", ##__VA_ARGS__))

#endif  // FLOWCHECK_CORE_KERNEL_IDIOMS_H_
