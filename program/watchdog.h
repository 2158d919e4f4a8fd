// program/watchdog.h: turns a hang into a report.
//
// The run's threads bump a shared progress counter as they complete ops and
// pass quiescent points. A watchdog thread samples it; when it has not moved
// for `timeout_seconds`, the watchdog prints
//
//   flowcheck: FAIL [watchdog] no progress for 10 s (progress counter 123456)
//   <one line per stress thread: what it was doing>
//   <lockcheck::DescribeAllThreads(): every thread's held locks and the lock it spins on>
//   flowcheck: seed ... / flowcheck: rerun: ...
//
// and aborts (program/failure.h), so a deadlock, a lost wakeup that leaves a
// thread waiting or a livelock never becomes a silent CI timeout. The
// watchdog reads only atomics and lockcheck's snapshot: it adds no
// happens-before edge between the threads it watches.
#ifndef FLOWCHECK_PROGRAM_WATCHDOG_H_
#define FLOWCHECK_PROGRAM_WATCHDOG_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace flowcheck {
namespace program {

class Watchdog {
 public:
  // `progress` must outlive the watchdog. `describe` (may be empty) returns
  // the harness's own per-thread status lines for the report.
  Watchdog(const std::atomic<uint64_t>* progress, double timeout_seconds,
           std::function<std::string()> describe);
  ~Watchdog();  // Stop()
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void Start();
  // Stops and joins the watchdog thread (idempotent).
  void Stop();

  // The report text for a stall of `stalled_seconds` (no abort): the marker
  // line, the harness's status, lockcheck's thread descriptions.
  std::string StallReport(double stalled_seconds) const;

 private:
  void Loop();

  const std::atomic<uint64_t>* progress_;
  const double timeout_seconds_;
  const std::function<std::string()> describe_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_WATCHDOG_H_
