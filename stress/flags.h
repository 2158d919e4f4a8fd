// stress/flags.h: the stress driver's command-line flags (Abseil flags).
//
//   --threads=4 --ops_per_thread=-1 --seconds=0 --contexts=1 --qps_per_thread=2
//   --seed=0 --yield_probability=0.05 --watchdog_seconds=30 --quiescent_every=500
//   --workers=2 --irq_thread=true --bare_per_thread=7 --flush_handoff=true
//   --sched=off --sched_depth=3 --max_preemptions=2 --sched_executions=0
//   --sched_ops=4 --sched_free_flows=1 --schedule_out= --replay=
//   --json_out= --progress_every=1
//
// Each maps to the StressConfig field of the same name (stress/config.h says
// what it does). Only stress_main links this.
//
// ParseFlags reads the command line into these flags without exiting, so
// that every bad command line gets the same exit code (stress_main: 2)
// whether the syntax, the value or the config validation is wrong:
//
//   std::string error = ParseFlags(argc, argv);
//   if (!error.empty()) { fprintf(stderr, "stress_main: %s\n", error.c_str()); return 2; }
#ifndef FLOWCHECK_STRESS_FLAGS_H_
#define FLOWCHECK_STRESS_FLAGS_H_

#include <string>

#include "stress/config.h"

namespace flowcheck {
namespace stress {

// Sets the flags from argv[1..argc-1]: --name=value, -name=value,
// --name value (not for booleans), --name / --noname (booleans only). Only
// the flags above are accepted; "--" or any other argument is an error.
// Returns "" or one line naming the offending argument and why. Abseil's
// usage flags (--help, --helpfull, --helpshort, --helppackage, --helpon=,
// --helpmatch=, --version, --only_check_args) are handed, once the rest
// parsed, to absl::ParseCommandLine, which prints and exits as Abseil does.
std::string ParseFlags(int argc, char** argv);

// --replay=FILE ("" if not given).
std::string ReplayFlag();

// The config the parsed flags describe.
StressConfig ConfigFromFlags();

}  // namespace stress
}  // namespace flowcheck

#endif  // FLOWCHECK_STRESS_FLAGS_H_
