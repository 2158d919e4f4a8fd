// stress/flags.h: the stress driver's command-line flags (Abseil flags).
//
//   --threads=4 --ops_per_thread=-1 --seconds=0 --contexts=1 --qps_per_thread=2
//   --seed=0 --yield_probability=0.05 --watchdog_seconds=30 --quiescent_every=500
//   --workers=2 --irq_thread=true --bare_per_thread=7 --flush_handoff=true
//   --json_out= --progress_every=1
//
// Each maps to the StressConfig field of the same name (stress/config.h says
// what it does). Only stress_main links this.
#ifndef FLOWCHECK_STRESS_FLAGS_H_
#define FLOWCHECK_STRESS_FLAGS_H_

#include "stress/config.h"

namespace flowcheck {
namespace stress {

// The config the parsed flags describe.
StressConfig ConfigFromFlags();

}  // namespace stress
}  // namespace flowcheck

#endif  // FLOWCHECK_STRESS_FLAGS_H_
