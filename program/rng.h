// program/rng.h: the engine's seeded generator (splitmix64).
//
// Every source of randomness in a stress run derives from the run's --seed:
// op thread i draws its op sequence from Rng(StreamSeed(seed, i)), the yield
// hook of each thread from its own stream. Same seed, same op sequences; the
// interleaving itself is the OS scheduler's, pushed around by the yields.
// Not thread-safe: one Rng per thread.
#ifndef FLOWCHECK_PROGRAM_RNG_H_
#define FLOWCHECK_PROGRAM_RNG_H_

#include <cstdint>

#include "common/splitmix64.h"

namespace flowcheck {
namespace program {

// The seed of stream `index` of a run seeded with `seed`: independent streams
// for different indices (splitmix64 of a mixed value).
inline uint64_t StreamSeed(uint64_t seed, uint64_t index) {
  return seed * 0x9E3779B97F4A7C15ull + (index + 1) * 0xD1B54A32D192ED03ull;
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : bits_(seed) {}

  uint64_t Next() { return bits_.Next(); }
  // Uniform in [0, n); n > 0.
  uint32_t Below(uint32_t n) { return static_cast<uint32_t>((Next() >> 32) * n >> 32); }
  // True with probability p (0 <= p <= 1).
  bool Chance(double p) { return static_cast<double>(Next() >> 11) * 0x1.0p-53 < p; }

 private:
  SplitMix64 bits_;
};

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_RNG_H_
