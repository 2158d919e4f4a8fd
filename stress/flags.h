// stress/flags.h: the stress driver's command-line flags.
//
// One flag per StressConfig field, of the same name and type, with the
// field's default (but --progress_every=1) and help text: the table
// FLOWCHECK_STRESS_CONFIG_FIELDS in program/config.h. Besides them,
// --replay=FILE and, with it, --minimize and --trace_out=FILE.
// `stress_main --helpfull` lists them all. Only stress_main links this.
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

#include "program/config.h"

namespace flowcheck {
namespace stress {

// Sets the flags from argv[1..argc-1]: --name=value, -name=value,
// --name value (not for booleans), --name / --noname (booleans only). Only
// the flags above are accepted; "--" or any other argument is an error.
// Returns "" or one line naming the offending argument and why. Once the
// rest parsed, --help (or --helpfull, --helpshort, --helppackage, --helpon=,
// --helpmatch=) prints every flag, its help and default, and exits 1;
// --version and --only_check_args exit 0 (the exits Abseil's flags gave).
std::string ParseFlags(int argc, char** argv);

// --replay=FILE ("" if not given); --minimize; --trace_out=FILE ("").
std::string ReplayFlag();
bool MinimizeFlag();
std::string TraceOutFlag();

// The config the parsed flags describe.
program::StressConfig ConfigFromFlags();

}  // namespace stress
}  // namespace flowcheck

#endif  // FLOWCHECK_STRESS_FLAGS_H_
