// program/watchdog.cc: see watchdog.h.
#include "program/watchdog.h"

#include <chrono>

#include "common/strings.h"
#include "lockcheck/lockdep.h"
#include "program/failure.h"

namespace flowcheck {
namespace program {

Watchdog::Watchdog(const std::atomic<uint64_t>* progress, double timeout_seconds,
                   std::function<std::string()> describe)
    : progress_(progress), timeout_seconds_(timeout_seconds), describe_(std::move(describe)) {}

Watchdog::~Watchdog() { Stop(); }

void Watchdog::Start() {
  std::lock_guard<std::mutex> l(mu_);
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void Watchdog::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

std::string Watchdog::StallReport(double stalled_seconds) const {
  std::string s = flowcheck::StrFormat("no progress for %g s (progress counter %" PRIu64 ")\n",
                                       stalled_seconds, progress_->load(std::memory_order_relaxed));
  if (describe_) s += "stress threads (what each was doing):\n" + describe_();
  s += "threads known to lockcheck (held locks, lock spun on):\n";
  s += lockcheck::DescribeAllThreads();
  return s;
}

void Watchdog::Loop() {
  lockcheck::SetThreadName("stress-watchdog");
  using Clock = std::chrono::steady_clock;
  uint64_t last = progress_->load(std::memory_order_relaxed);
  Clock::time_point last_change = Clock::now();
  std::unique_lock<std::mutex> l(mu_);
  while (!stop_) {
    cv_.wait_for(l, std::chrono::milliseconds(100));
    if (stop_) break;
    uint64_t now_value = progress_->load(std::memory_order_relaxed);
    Clock::time_point now = Clock::now();
    if (now_value != last) {
      last = now_value;
      last_change = now;
      continue;
    }
    double stalled = std::chrono::duration<double>(now - last_change).count();
    if (stalled >= timeout_seconds_) {
      Fail("watchdog", StallReport(timeout_seconds_));
    }
  }
}

}  // namespace program
}  // namespace flowcheck
