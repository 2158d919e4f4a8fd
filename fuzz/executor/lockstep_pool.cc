// fuzz/executor/lockstep_pool.cc: see lockstep_pool.h.
#include "fuzz/executor/lockstep_pool.h"

#include <cstdio>
#include <cstdlib>

#include "fuzz/input_format.h"

namespace flowcheck {
namespace fuzz {

oracle::Lockstep& PooledLockstep(int num_qps, uint64_t seed) {
  static oracle::Lockstep* pool[kMaxFlowQps + 1] = {};
  if (num_qps < 1 || num_qps > kMaxFlowQps) {
    std::fprintf(stderr, "fuzz executor: %d QPs outside 1..%d\n", num_qps, kMaxFlowQps);
    std::abort();
  }
  oracle::Lockstep*& ls = pool[num_qps];
  if (ls == nullptr) {
    ls = new oracle::Lockstep(num_qps, seed);  // never destroyed: lives as long as the process
  } else {
    ls->Reset(seed);
  }
  return *ls;
}

}  // namespace fuzz
}  // namespace flowcheck
