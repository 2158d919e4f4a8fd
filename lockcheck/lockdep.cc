// lockcheck/lockdep.cc: test support. The rest of lockdep.h is implemented
// next to what it inspects: assertions in spinlock.cc, threads in
// internal/threads.cc.
#include "lockcheck/lockdep.h"

#include "lockcheck/internal/graph.h"
#include "lockcheck/internal/reporting.h"

namespace lockcheck {

void ResetForTesting() {
  internal::ResetGraph();
  internal::ForgetReports();
}

}  // namespace lockcheck
