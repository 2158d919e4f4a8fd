// Why the bit operations are the kernel's (atomic RMW, plain ffz read): a
// caller of kern_reserve_flow that forgets exp_lock is a data race that
// ThreadSanitizer reports, not a silent corruption. Meaningful under
// --config=tsan only; skipped elsewhere.
#include <atomic>
#include <thread>

#include "core/bitops.h"
#include "core/test_model.h"
#include "core/tid_rdma.h"
#include "gtest/gtest.h"
#include "lockcheck/report.h"

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

}  // namespace
