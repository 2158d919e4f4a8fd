// common/splitmix64.h: SplitMix64, the deterministic generator behind every
// seeded choice (sched's strategies, the engine's op lists and yields): the
// same bits on every platform and library version, unlike std::
// distributions. Each user keeps its own way of drawing from it (its
// sequences are pinned by seeds in tests and docs). Not thread-safe.
#ifndef FLOWCHECK_COMMON_SPLITMIX64_H_
#define FLOWCHECK_COMMON_SPLITMIX64_H_

#include <cstdint>

namespace flowcheck {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

}  // namespace flowcheck

#endif  // FLOWCHECK_COMMON_SPLITMIX64_H_
