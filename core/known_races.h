// core/known_races.h: NOT KERNEL. The kernel's own data races that flowcheck
// keeps (the model follows the kernel, and upstream mode runs its text) but
// does not report by default: each in one place here, shown on demand.
//
// [R-11] (docs/kernel-hazards.md): hfi1_tid_write_alloc_resources calls
// position_in_queue(qpriv, queue), for its RNR timeout estimate, after
// hfi1_kern_setup_hw_flow or hfi1_kern_exp_rcv_setup has dropped exp_lock: it
// reads queue->dequeue, which every dequeue on the context writes under
// exp_lock, with only the QP's s_lock held. Both texts make that call through
// hfi1_r11_position_in_queue (core/tid_rdma_write.cc by a #define,
// upstream/functions.txt by calls=), which runs it with ThreadSanitizer
// ignoring its reads, unless FLOWCHECK_TSAN_KERNEL_RACES=1 is in the
// environment: then a TSan run reports the race (//core:tsan_race_test).
#ifndef FLOWCHECK_CORE_KNOWN_RACES_H_
#define FLOWCHECK_CORE_KNOWN_RACES_H_

#include "core/hfi1.h"
#include "core/qp.h"

// Runs `position` (the text's position_in_queue) on (qpriv, queue), its
// reads hidden from TSan unless FLOWCHECK_TSAN_KERNEL_RACES is "1" (read
// once, at the first call); returns its result.
u32 hfi1_r11_position_in_queue(u32 (*position)(hfi1_qp_priv*, tid_queue*), hfi1_qp_priv* qpriv,
                               tid_queue* queue);

#endif  // FLOWCHECK_CORE_KNOWN_RACES_H_
