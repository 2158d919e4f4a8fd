// sched/bytes_strategy.cc: the decisions read from a byte string, for a fuzz
// target whose input carries its schedule (libFuzzer mutates the bytes).
//
// At decision k, with bytes left, byte k picks among the candidates: the
// current thread first (when it can go on), then the other runnable threads
// in id order starting after the current one; byte % candidates. So 0 means
// "stay", 1 "switch to the next thread", and a byte keeps meaning "stay" or
// "the k-th other" when threads are added. When the bytes run out: the
// current thread goes on (no preemption), else the lowest runnable one.
//
// Lenient: every byte string is a valid schedule for every scenario (any
// byte names some runnable thread), so Choose never reports divergence; an
// input stays meaningful (if differently) when decision points are added to
// or removed from the code under test. One execution.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sched/strategy.h"

namespace sched {
namespace {

// The candidates at `d`, in the order a byte picks them: the current thread
// first (when it can go on), then the other runnable threads in id order
// starting after it. Returns how many.
int Candidates(const Decision& d, int out[64]) {
  int n = 0;
  if (d.current >= 0 && d.current_runnable) out[n++] = d.current;
  const int start = d.current >= 0 ? d.current + 1 : 0;
  for (int i = 0; i < 64; ++i) {
    const int t = (start + i) % 64;
    if (t != d.current && ((d.runnable >> t) & 1)) out[n++] = t;
  }
  return n;
}

class BytesStrategy : public Strategy {
 public:
  explicit BytesStrategy(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}

  const char* name() const override { return "bytes"; }

  bool BeginExecution(uint64_t index) override {
    next_ = 0;
    return index == 0;
  }

  int Choose(const Decision& d, std::string* /*divergence*/) override {
    const bool stay = d.current >= 0 && d.current_runnable;
    if (next_ >= bytes_.size()) {
      used_all_ = true;
      return stay ? d.current : __builtin_ctzll(d.runnable);
    }
    const uint8_t b = bytes_[next_++];
    int candidates[64];
    const int n = Candidates(d, candidates);
    return candidates[b % n];
  }

  std::string Summary(uint64_t executions, bool failed) const override {
    return "flowcheck: bytes: " + std::to_string(executions) + " execution, " +
           std::to_string(next_) + " of " + std::to_string(bytes_.size()) +
           " scheduling byte(s) used" + (used_all_ ? " (then no preemption)" : "") +
           (failed ? ", failed" : ", passed");
  }

 private:
  const std::vector<uint8_t> bytes_;
  size_t next_ = 0;
  bool used_all_ = false;
};

}  // namespace

uint8_t ByteFor(const Decision& d, int chosen) {
  int candidates[64];
  const int n = Candidates(d, candidates);
  for (int i = 0; i < n; ++i) {
    if (candidates[i] == chosen) return static_cast<uint8_t>(i);
  }
  return 0;  // not a candidate: the caller's bug (Choose checked it runnable)
}

std::unique_ptr<Strategy> MakeBytesStrategy(std::vector<uint8_t> bytes) {
  return std::make_unique<BytesStrategy>(std::move(bytes));
}

}  // namespace sched
