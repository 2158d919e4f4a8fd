// Why the bit operations are the kernel's (atomic RMW, plain ffz read): a
// caller of kern_reserve_flow that forgets exp_lock is a data race that
// ThreadSanitizer reports, not a silent corruption. And, a race of the
// kernel's own text that flowcheck keeps and shows on demand
// (core/known_races.h). Meaningful under --config=tsan only; skipped
// elsewhere.
#include <sched.h>
#include <stdlib.h>

#include <atomic>
#include <thread>

#include "core/bitops.h"
#include "core/callers.h"
#include "core/test_model.h"
#include "core/tid_rdma.h"
#include "gtest/gtest.h"
#include "lockcheck/report.h"
#include "lockcheck/schedule.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FLOWCHECK_TSAN 1
#endif
#endif

namespace {

#ifdef FLOWCHECK_TSAN
// lockdep_assert_held fires on every call; ignore it without synchronizing
// (a recording handler's mutex would order the two threads).
void IgnoreReport(const lockcheck::Report&) {}

void ReserveAndReleaseWithoutTheLock(hfi1_ctxtdata* rcd) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  for (int i = 0; i < 2000; ++i) {
    int r = kern_reserve_flow(rcd, RXE_NUM_TID_FLOWS);  // ffz: plain read
    if (r >= 0) clear_bit(r, &rcd->flow_mask);          // atomic RMW
  }
}

void TwoThreadsForgetExpLock() {
  flowcheck::testing::TestModel m(0);
  lockcheck::SetReportHandler(&IgnoreReport);
  std::thread a(ReserveAndReleaseWithoutTheLock, m.rcd());
  std::thread b(ReserveAndReleaseWithoutTheLock, m.rcd());
  a.join();
  b.join();
  lockcheck::SetReportHandler(nullptr);
}
#endif

TEST(TsanDeathTest, ForgettingExpLockIsADataRaceOnFlowMask) {
#ifndef FLOWCHECK_TSAN
  GTEST_SKIP() << "needs --config=tsan";
#else
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_DEATH(TwoThreadsForgetExpLock(), "ThreadSanitizer: data race(.|\n)*kern_reserve_flow");
#endif
}

#ifdef FLOWCHECK_TSAN
// the WRITE responder's allocator, its flow setup refused (qp 2 waits
// at flow_queue's head, every flow is held), reads flow_queue's dequeue
// counter after hfi1_kern_setup_hw_flow dropped exp_lock. Between that unlock
// and the read, another thread flushes qp 2, a dequeue under exp_lock. The
// order is forced with the schedule hook and relaxed atomics, which give
// ThreadSanitizer no happens-before edge: only the code under test's locks
// do, and they order nothing here.
struct R11Window {
  hfi1_ctxtdata* rcd;
  std::atomic<bool> armed{false};      // the allocator's thread is running
  std::atomic<bool> in_window{false};  // it released exp_lock after its setup
  std::atomic<bool> flushed{false};    // the other thread's dequeue is done
};
thread_local bool r11_allocator_thread = false;

void R11Hook(lockcheck::SchedulePoint point, const void* lock, void* arg) {
  auto* w = static_cast<R11Window*>(arg);
  if (!r11_allocator_thread || point != lockcheck::SchedulePoint::kAfterRelease ||
      lock != &w->rcd->exp_lock || w->in_window.load(std::memory_order_relaxed)) {
    return;
  }
  w->in_window.store(true, std::memory_order_relaxed);
  while (!w->flushed.load(std::memory_order_relaxed)) sched_yield();
}

void WriteAllocatorReadsADequeueCounterAFlushWrites() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  flowcheck::testing::TestModel m(2);
  for (int i = 0; i < RXE_NUM_TID_FLOWS; ++i) ASSERT_GE(caller_reserve_flow(m.rcd(), i), 0);
  ASSERT_EQ(caller_setup_hw_flow(m.qp(1)), -EAGAIN);  // qp 2 at flow_queue's head
  R11Window w;
  w.rcd = m.rcd();
  lockcheck::SetScheduleHook(&R11Hook, &w);
  const u8 pages[4] = {1, 1, 1, 1};
  std::thread allocator([&] {
    r11_allocator_thread = true;
    EXPECT_EQ(caller_write_alloc_segment(m.qp(0), pages, 4), -EAGAIN);
  });
  std::thread flusher([&] {
    while (!w.in_window.load(std::memory_order_relaxed)) sched_yield();
    caller_flush_wait(m.qp(1));  // _tid_rdma_flush_wait: flow_queue.dequeue++
    w.flushed.store(true, std::memory_order_relaxed);
  });
  allocator.join();
  flusher.join();
  lockcheck::SetScheduleHook(nullptr, nullptr);
}
#endif

TEST(TsanDeathTest, R11TheWriteAllocatorReadsADequeueCounterWithoutExpLock) {
#ifndef FLOWCHECK_TSAN
  GTEST_SKIP() << "needs --config=tsan";
#else
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  setenv("FLOWCHECK_TSAN_KERNEL_RACES", "1", 1);  // the death test's child reads it
  EXPECT_DEATH(WriteAllocatorReadsADequeueCounterAFlushWrites(),
               "ThreadSanitizer: data race(.|\n)*position_in_queue(.|\n)*"
               "hfi1_tid_write_alloc_resources");
  unsetenv("FLOWCHECK_TSAN_KERNEL_RACES");
#endif
}

// The same interleaving without FLOWCHECK_TSAN_KERNEL_RACES: hidden, the
// process lives (it is this one: the variable was never set in it).
TEST(TsanTest, R11IsHiddenByDefault) {
#ifndef FLOWCHECK_TSAN
  GTEST_SKIP() << "needs --config=tsan";
#else
  ASSERT_EQ(getenv("FLOWCHECK_TSAN_KERNEL_RACES"), nullptr);
  WriteAllocatorReadsADequeueCounterAFlushWrites();
#endif
}

}  // namespace
