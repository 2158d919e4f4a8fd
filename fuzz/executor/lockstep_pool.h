// fuzz/executor/lockstep_pool.h: one core/oracle Lockstep per QP count,
// created on first use and reset for every program after that.
//
//   oracle::Lockstep& ls = PooledLockstep(p.num_qps, p.seed);  // as fresh
//
// Construction is far dearer than a reset (docs/fuzz.md, "Speed"), and a
// fuzz target runs one short program per reset. Lockstep::Reset's contract is
// "as fresh as a new Lockstep(num_qps, seed)" (//core/oracle:oracle_test
// ResetIsAsFresh). Not thread-safe, and the returned Lockstep is valid only
// until the next call with the same num_qps: one program at a time per
// process, as libFuzzer and the tests run them.
#ifndef FLOWCHECK_FUZZ_EXECUTOR_LOCKSTEP_POOL_H_
#define FLOWCHECK_FUZZ_EXECUTOR_LOCKSTEP_POOL_H_

#include <cstdint>

#include "core/oracle/lockstep.h"

namespace flowcheck {
namespace fuzz {

// num_qps must be 1..kMaxFlowQps (aborts otherwise: a caller bug).
oracle::Lockstep& PooledLockstep(int num_qps, uint64_t seed);

}  // namespace fuzz
}  // namespace flowcheck

#endif  // FLOWCHECK_FUZZ_EXECUTOR_LOCKSTEP_POOL_H_
