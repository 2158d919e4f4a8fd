// core/reserve_benchmark.cc: the cost of the model's reserve + release cycle
// against a hand-written baseline doing the same work, in one binary.
//
//   bazel run --config=bench //core:reserve_benchmark           # the figures
//   bazel run --config=bench //core:reserve_benchmark_ratio     # PASS/FAIL vs 1.2x
//
// The cycle, as hfi1_kern_setup_hw_flow + hfi1_kern_clear_hw_flow do it:
//   spin_lock_irqsave(exp_lock); r = kern_reserve_flow(rcd, last); unlock;
//   spin_lock_irqsave(exp_lock); clear_bit(r, &flow_mask);          unlock;
// Model:    the real kern_reserve_flow, lockcheck's spinlock_t (checks compiled
//           out under --config=bench), the emulated IRQ flag, lockdep asserts.
// Baseline: a std::atomic<bool> test-and-test-and-set spinlock and the bit
//           operations inline on a plain word: the same atomic RMWs the kernel
//           uses (BM_Raw*), and, for reference only, non-atomic ones
//           (BM_RawPlainBitops*, what __set_bit/__clear_bit would cost).
// Arg: 0 = the preferred flow is free (test_and_set_bit path),
//      1 = "don't care" with 16 flows taken (ffz + set_bit path).
#include <atomic>
#include <cerrno>
#include <memory>

#include "benchmark/benchmark.h"
#include "core/bitops.h"
#include "core/hfi1.h"
#include "core/tid_rdma.h"
#include "core/workqueue.h"
#include "lockcheck/config.h"

namespace {

constexpr unsigned long kSixteenTaken = 0xFFFFUL;

int LastFor(int64_t arg) { return arg == 0 ? 20 : RXE_NUM_TID_FLOWS; }
unsigned long MaskFor(int64_t arg) { return arg == 0 ? 0 : kSixteenTaken; }

void BM_KernReserveRelease(benchmark::State& state) {
  workqueue_struct wq("bench");
  std::unique_ptr<hfi1_devdata> dd = hfi1_model_alloc_devdata(1, &wq, 1);
  hfi1_ctxtdata* rcd = dd->rcd[0].get();
  const int last = LastFor(state.range(0));
  unsigned long flags;
  spin_lock_irqsave(&rcd->exp_lock, flags);
  rcd->flow_mask = MaskFor(state.range(0));
  spin_unlock_irqrestore(&rcd->exp_lock, flags);
  for (auto _ : state) {
    spin_lock_irqsave(&rcd->exp_lock, flags);
    int r = kern_reserve_flow(rcd, last);
    spin_unlock_irqrestore(&rcd->exp_lock, flags);
    benchmark::DoNotOptimize(r);
    spin_lock_irqsave(&rcd->exp_lock, flags);
    clear_bit(r, &rcd->flow_mask);
    spin_unlock_irqrestore(&rcd->exp_lock, flags);
  }
  state.SetLabel(lockcheck::kChecksEnabled ? "lockcheck checks ON (use --config=bench)"
                                           : "lockcheck checks compiled out");
}
BENCHMARK(BM_KernReserveRelease)->Arg(0)->Arg(1);

struct RawContext {
  std::atomic<bool> lock{false};
  unsigned long mask = 0;
};

inline void RawLock(std::atomic<bool>& l) {
  while (l.exchange(true, std::memory_order_acquire)) {
    while (l.load(std::memory_order_relaxed)) __builtin_ia32_pause();
  }
}
inline void RawUnlock(std::atomic<bool>& l) { l.store(false, std::memory_order_release); }

template <bool kAtomicBitops>
inline int RawReserve(RawContext& c, int last) {
  if (last >= 0 && last < 32) {
    const unsigned long bit = 1UL << last;
    const unsigned long old = kAtomicBitops ? __atomic_fetch_or(&c.mask, bit, __ATOMIC_SEQ_CST)
                                            : (c.mask |= bit, c.mask & ~bit);
    if (!(old & bit)) return last;
  }
  const int nr = ~c.mask == 0 ? 64 : __builtin_ctzl(~c.mask);
  if (nr > 31) return -EAGAIN;
  if (kAtomicBitops) {
    __atomic_fetch_or(&c.mask, 1UL << nr, __ATOMIC_RELAXED);
  } else {
    c.mask |= 1UL << nr;
  }
  return nr;
}

template <bool kAtomicBitops>
void RawCycle(benchmark::State& state) {
  RawContext c;
  c.mask = MaskFor(state.range(0));
  const int last = LastFor(state.range(0));
  for (auto _ : state) {
    RawLock(c.lock);
    int r = RawReserve<kAtomicBitops>(c, last);
    RawUnlock(c.lock);
    benchmark::DoNotOptimize(r);
    RawLock(c.lock);
    if (kAtomicBitops) {
      __atomic_fetch_and(&c.mask, ~(1UL << r), __ATOMIC_RELAXED);
    } else {
      c.mask &= ~(1UL << r);
    }
    RawUnlock(c.lock);
  }
}

void BM_RawReserveRelease(benchmark::State& state) { RawCycle<true>(state); }
void BM_RawPlainBitopsReserveRelease(benchmark::State& state) { RawCycle<false>(state); }
BENCHMARK(BM_RawReserveRelease)->Arg(0)->Arg(1);
BENCHMARK(BM_RawPlainBitopsReserveRelease)->Arg(0)->Arg(1);

}  // namespace
