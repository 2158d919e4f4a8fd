// core/hfi1.cc: device and context creation, the CSR model, get_random_u32.
#include "core/hfi1.h"

#include <cstdio>
#include <cstdlib>

#include "core/exp_rcv.h"
#include "core/tid_rdma.h"
#include "lockcheck/irq.h"

u32 get_random_u32(hfi1_model_random* random) {
  if (random->hook != nullptr) return random->hook(random->hook_arg);
  // splitmix64: small, fast, and every seed gives an independent stream.
  u64 z = (random->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<u32>((z ^ (z >> 31)) >> 32);
}

std::unique_ptr<hfi1_devdata> hfi1_model_alloc_devdata(int n_krcv_queues,
                                                       workqueue_struct* wq,
                                                       u64 seed) {
  if (n_krcv_queues < 1 || n_krcv_queues > 255) {
    std::fprintf(stderr, "hfi1 model: n_krcv_queues %d out of range\n", n_krcv_queues);
    std::abort();
  }
  auto dd = std::make_unique<hfi1_devdata>();
  dd->n_krcv_queues = static_cast<u16>(n_krcv_queues);
  dd->first_dyn_alloc_ctxt = dd->n_krcv_queues;
  dd->hfi1_wq = wq;
  // Round-robin over the kernel contexts that carry verbs traffic (1..n-1),
  // as the default QOS map spreads QPs; a one-context device uses context 0.
  dd->qp_map.resize(256);
  for (size_t i = 0; i < dd->qp_map.size(); ++i) {
    dd->qp_map[i] = n_krcv_queues == 1 ? 0 : static_cast<u8>(1 + i % (n_krcv_queues - 1));
  }
  dd->rcd.resize(n_krcv_queues);
  for (int c = 0; c < n_krcv_queues; ++c) {
    hfi1_create_ctxtdata(dd.get(), static_cast<u16>(c), seed + static_cast<u64>(c));
  }
  return dd;
}

hfi1_ctxtdata* hfi1_create_ctxtdata(hfi1_devdata* dd, u16 ctxt, u64 seed)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {  // not shared yet: initialised unlocked
  if (ctxt >= dd->rcd.size()) dd->rcd.resize(ctxt + 1);
  auto rcd = std::make_unique<hfi1_ctxtdata>();
  rcd->dd = dd;
  rcd->ppd = dd;
  rcd->ctxt = ctxt;
  rcd->random.state = seed;
  spin_lock_init(&rcd->exp_lock);
  // The receive interrupt takes exp_lock (docs/kernel.md, "Lock order": "IRQ-safe only"): from now
  // on lockcheck reports any acquisition of it with (emulated) IRQs on, even
  // in a run that never emulates the interrupt itself.
  lockcheck::DeclareHardirqSafe(&rcd->exp_lock);
  INIT_LIST_HEAD(&rcd->flow_queue.queue_head);
  INIT_LIST_HEAD(&rcd->rarr_queue.queue_head);
  rcd->expected_base = static_cast<u16>(ctxt * kModelExpectedCount);
  rcd->expected_count = kModelExpectedCount;
  hfi1_alloc_ctxt_rcv_groups(rcd.get());
  dd->rcd[ctxt] = std::move(rcd);
  hfi1_ctxtdata* r = dd->rcd[ctxt].get();
  if (ctxt < dd->first_dyn_alloc_ctxt) hfi1_kern_init_ctxt_generations(r);
  return r;
}

namespace {

std::atomic<u64>& FlowRegister(const hfi1_devdata* dd, u16 ctxt, u32 offset) {
  u32 idx = (offset - RCV_TID_FLOW_TABLE) / 8;
  if (ctxt >= dd->rcd.size() || dd->rcd[ctxt] == nullptr || offset < RCV_TID_FLOW_TABLE ||
      (offset - RCV_TID_FLOW_TABLE) % 8 != 0 || idx >= static_cast<u32>(RXE_NUM_TID_FLOWS)) {
    std::fprintf(stderr, "hfi1 model: CSR access outside the flow table: ctxt %u offset 0x%x\n",
                 ctxt, offset);
    std::abort();
  }
  return dd->rcd[ctxt]->rcv_tid_flow_table[idx];
}

}  // namespace

void write_uctxt_csr(hfi1_devdata* dd, u16 ctxt, u32 offset, u64 value) {
  FlowRegister(dd, ctxt, offset).store(value, std::memory_order_relaxed);
}

u64 read_uctxt_csr(const hfi1_devdata* dd, u16 ctxt, u32 offset) {
  return FlowRegister(dd, ctxt, offset).load(std::memory_order_relaxed);
}
