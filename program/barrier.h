// program/barrier.h: the quiescent point.
//
// All participants (the op threads and the receive-interrupt thread) arrive;
// the last to arrive runs the leader action while the others stay parked
// (the checks then see the model at rest), and the action's result is
// returned to everyone (e.g. "keep going"). The first arrival raises
// pause_requested(), which threads without a fixed op count (the interrupt
// thread) poll between ops.
//
// Built on std::mutex + std::condition_variable on purpose (absl::Barrier
// gives TSan false positives with this Abseil). It creates happens-before
// edges between all participants at each quiescent point, and only there:
// between two points the op phases stay unordered, so TSan still sees races.
#ifndef FLOWCHECK_PROGRAM_BARRIER_H_
#define FLOWCHECK_PROGRAM_BARRIER_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace flowcheck {
namespace program {

class QuiescentBarrier {
 public:
  explicit QuiescentBarrier(int participants) : participants_(participants) {}

  // Blocks until every participant arrived. The last one runs `leader`
  // (called with no lock of the barrier held) and its result is returned to
  // all. Every participant must pass an equivalent action (whose runs it is
  // does not matter).
  bool Arrive(const std::function<bool()>& leader) {
    std::unique_lock<std::mutex> l(mu_);
    const uint64_t generation = generation_;
    pause_.store(true, std::memory_order_relaxed);
    if (++arrived_ < participants_) {
      cv_.wait(l, [&] { return generation_ != generation; });
      return result_;
    }
    l.unlock();
    const bool result = leader();
    l.lock();
    result_ = result;
    arrived_ = 0;
    pause_.store(false, std::memory_order_relaxed);
    ++generation_;
    cv_.notify_all();
    return result;
  }

  // True once a participant has arrived at the current point.
  bool pause_requested() const { return pause_.load(std::memory_order_relaxed); }

 private:
  const int participants_;
  std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  bool result_ = true;
  std::atomic<bool> pause_{false};
};

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_BARRIER_H_
