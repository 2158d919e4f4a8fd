// lockcheck/testing/kernel_locks.h: kernel-shaped lock holders and a gtest
// fixture for lockcheck's own tests.
//
// The structs mirror the hfi1 driver's lock roles: one class per
// role, whatever the number of instances, named as lockdep would name them:
// "&rcd->exp_lock", "&qp->s_lock", "&qp->r_lock".
#ifndef FLOWCHECK_LOCKCHECK_TESTING_KERNEL_LOCKS_H_
#define FLOWCHECK_LOCKCHECK_TESTING_KERNEL_LOCKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/report.h"
#include "lockcheck/spinlock.h"

namespace lockcheck_testing {

// Initialised as in the driver, so the classes get the driver's names.
struct hfi1_ctxtdata {
  hfi1_ctxtdata() { Init(this); }
  static void Init(hfi1_ctxtdata* rcd) { spin_lock_init(&rcd->exp_lock); }
  spinlock_t exp_lock;
};

struct rvt_qp {
  rvt_qp() { Init(this); }
  static void Init(rvt_qp* qp) {
    spin_lock_init(&qp->r_lock);
    spin_lock_init(&qp->s_lock);
  }
  spinlock_t r_lock;
  spinlock_t s_lock;
};

// Deliberately wrong lock usage, for tests of the RUN-TIME checks. Clang's
// thread-safety analysis rejects such code at compile time (that layer has
// its own compile-fail tests), so these wrappers hide it from the analysis.
// Always inlined: the caller stays the call site lockcheck records.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void LockHiddenFromAnalysis(spinlock_t* lock)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  spin_lock(lock);
}
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void UnlockHiddenFromAnalysis(spinlock_t* lock)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  spin_unlock(lock);
}

// The line of lockcheck::DescribeAllThreads() about thread `id`, or "".
inline std::string DescriptionOf(uint32_t id) {
  const std::string all = lockcheck::DescribeAllThreads();
  const std::string prefix = "thread " + std::to_string(id);
  size_t pos = 0;
  while (pos < all.size()) {
    size_t end = all.find('\n', pos);
    if (end == std::string::npos) end = all.size();
    std::string line = all.substr(pos, end - pos);
    if (line.compare(0, prefix.size(), prefix) == 0 &&
        (line.size() == prefix.size() || line[prefix.size()] == ' ')) {
      return line;
    }
    pos = end + 1;
  }
  return "";
}

// Every test starts with an empty order graph and IRQ usage, and records
// reports instead of aborting.
class LockcheckTest : public ::testing::Test {
 protected:
  LockcheckTest() { lockcheck::ResetForTesting(); }

  std::vector<lockcheck::Report> ReportsOf(lockcheck::Rule rule) const {
    std::vector<lockcheck::Report> out;
    for (const lockcheck::Report& r : rec_.reports()) {
      if (r.rule == rule) out.push_back(r);
    }
    return out;
  }

  // Every report so far, printed: the failure message of a test that
  // expected silence.
  std::string AllReports() const {
    std::string s;
    for (const lockcheck::Report& r : rec_.reports()) s += r.ToString() + "\n";
    return s;
  }

  lockcheck::RecordingHandler rec_;
};

}  // namespace lockcheck_testing

#endif  // FLOWCHECK_LOCKCHECK_TESTING_KERNEL_LOCKS_H_
