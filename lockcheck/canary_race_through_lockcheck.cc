// canary_race_through_lockcheck [lockcheck|control]
//
// Proves that lockcheck adds no happens-before edge between threads: thread A
// writes a plain int, then runs every lockcheck slow path (thread
// registration, new lock classes, new order edges, an order inversion, a
// same-class recursion, IRQ usage and an IRQ report, a failed assertion,
// DescribeAllThreads, symbolization, the recording handler, thread exit) and
// the inline fast path (known orders again, on its own lock instances).
// Thread B then runs the same slow paths, which take the same internal
// mutexes, and reads the int. The two threads are ordered in time only by a
// RELAXED atomic, so nothing but a leak from lockcheck can order the write
// before the read: under TSan this must be reported as a data race.
//
// `control` adds one std::mutex that both threads take where lockcheck's
// slow paths run: a real happens-before edge, like a leak would add. TSan must
// then stay silent, which shows the canary can see such an edge.
// Without TSan both modes exit 0. lockcheck_canary_test runs both.
//
// To bisect a leak, a second argument masks parts out: 1 skips lockcheck
// entirely, 2 the violations (reports), 4 DescribeAllThreads. This canary
// once caught lockcheck's function-local statics: their init guard is an
// acquire/release pair that TSan sees (see internal/tsan.h).
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sched.h>
#include <thread>

#include "lockcheck/irq.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/report.h"
#include "lockcheck/spinlock.h"

// Deliberately unsynchronized; TSan names it in the report.
int lockcheck_canary_racy_int = 0;

namespace {

std::atomic<int> phase{0};  // relaxed only: orders in time, not for TSan
bool control = false;
int skip_mask = 0;  // debugging aid: bits skip parts of the exercise
std::mutex control_mu;

struct hfi1_ctxtdata {
  spinlock_t exp_lock;
};
struct rvt_qp {
  spinlock_t s_lock;
};
void hfi1_init_ctxt(hfi1_ctxtdata* rcd) { spin_lock_init(&rcd->exp_lock); }
void rvt_init_qp(rvt_qp* qp) { spin_lock_init(&qp->s_lock); }

// Deliberately wrong uses, hidden from the compile-time analysis.
void Violations(hfi1_ctxtdata* rcd, rvt_qp* qp1, rvt_qp* qp2, bool first)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  // Order: A learns s_lock -> exp_lock; B inverts it (a report in B).
  spin_lock(first ? &qp1->s_lock : &rcd->exp_lock);
  spin_lock(first ? &rcd->exp_lock : &qp1->s_lock);
  spin_unlock(first ? &rcd->exp_lock : &qp1->s_lock);
  spin_unlock(first ? &qp1->s_lock : &rcd->exp_lock);
  // Two locks of one class (a report in A; B hits the dedupe).
  spin_lock(&qp1->s_lock);
  spin_lock(&qp2->s_lock);
  spin_unlock(&qp2->s_lock);
  spin_unlock(&qp1->s_lock);
  // IRQ: A uses exp_lock in hardirq context, B with IRQs on (a report in B).
  if (first) {
    lockcheck::HardirqScope irq;
    spin_lock(&rcd->exp_lock);
    spin_unlock(&rcd->exp_lock);
  } else {
    spin_lock(&rcd->exp_lock);
    spin_unlock(&rcd->exp_lock);
  }
  lockdep_assert_held(&rcd->exp_lock);  // fails: a report per thread's site
}

void ExerciseSlowPaths(const char* name, bool first) {
  if (skip_mask & 1) return;
  lockcheck::SetThreadName(name);
  hfi1_ctxtdata rcd;
  rvt_qp qp1, qp2;
  hfi1_init_ctxt(&rcd);
  rvt_init_qp(&qp1);
  rvt_init_qp(&qp2);
  spinlock_t own;  // a class new to each thread: class registration
  if (first) {
    spin_lock_init(&own);
  } else {
    spin_lock_init(&own);
  }
  spin_lock(&own);  // new edges own -> s_lock
  spin_lock(&qp1.s_lock);
  spin_unlock(&qp1.s_lock);
  spin_unlock(&own);
  for (int i = 0; i < 100; ++i) {  // nothing new any more: the inline fast path
    unsigned long flags;
    spin_lock(&own);
    spin_lock_irqsave(&qp1.s_lock, flags);
    spin_unlock_irqrestore(&qp1.s_lock, flags);
    spin_unlock(&own);
  }
  if (!(skip_mask & 2)) Violations(&rcd, &qp1, &qp2, first);
  if (skip_mask & 4) return;
  std::string all = lockcheck::DescribeAllThreads();
  if (all.empty()) std::printf("no threads described?\n");
}

// Set from A's last thread_local destructor: after lockcheck's own exit hook.
struct AfterExit {
  bool armed = false;
  ~AfterExit() {
    if (armed) phase.store(2, std::memory_order_relaxed);
  }
};
thread_local AfterExit after_exit;

void ThreadA() {
  after_exit.armed = true;  // registered before lockcheck's exit hook
  lockcheck_canary_racy_int = 42;  // the write
  if (control) control_mu.lock();
  ExerciseSlowPaths("A", /*first=*/true);
  if (control) control_mu.unlock();
  phase.store(1, std::memory_order_relaxed);
}

void ThreadB() {
  while (phase.load(std::memory_order_relaxed) < 2) sched_yield();
  if (control) control_mu.lock();
  ExerciseSlowPaths("B", /*first=*/false);
  if (control) control_mu.unlock();
  std::printf("read %d\n", lockcheck_canary_racy_int);  // the read
}

}  // namespace

int main(int argc, char** argv) {
  control = argc > 1 && std::strcmp(argv[1], "control") == 0;
  if (argc > 2) skip_mask = std::atoi(argv[2]);
  lockcheck::RecordingHandler rec;
  std::thread b(ThreadB);
  std::thread a(ThreadA);
  a.join();
  b.join();
  std::printf("%s mode: %zu lockcheck reports recorded\n", control ? "control" : "lockcheck",
              rec.reports().size());
  return rec.reports().size() >= 3 ? 0 : 1;  // the slow paths really ran
}
