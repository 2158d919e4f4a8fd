// stress/flags.cc: see flags.h. The flags are StressConfig's fields
// (FLOWCHECK_STRESS_CONFIG_FIELDS), so the flags, the library and the rerun
// command cannot disagree.
#include "stress/flags.h"

#include <cstdint>
#include <string>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace {
// The flags' defaults: a StressConfig's, but for --progress_every.
const flowcheck::program::StressConfig kFlagDefaults = [] {
  flowcheck::program::StressConfig c;
  c.progress_every = flowcheck::program::kFlagProgressEvery;
  return c;
}();
}  // namespace

// One flag per StressConfig field (program/config.h), of the same name.
#define FLOWCHECK_STRESS_DEFINE_FLAG(type, name, def, uses, help) \
  ABSL_FLAG(type, name, kFlagDefaults.name, help);
FLOWCHECK_STRESS_CONFIG_FIELDS(FLOWCHECK_STRESS_DEFINE_FLAG)
#undef FLOWCHECK_STRESS_DEFINE_FLAG
ABSL_FLAG(std::string, replay, "",
          "replay a schedule file written by a --sched run (no other flag but --json_out)");
ABSL_FLAG(bool, minimize, false,
          "with --replay=FILE: write FILE's minimized schedule beside it (FILE.min.schedule)");
ABSL_FLAG(std::string, trace_out, "",
          "with --replay=FILE: write the replayed execution's trace (JSON) here");

namespace flowcheck {
namespace stress {
namespace {

bool IsUsageFlag(absl::string_view name) {
  return name == "help" || name == "helpfull" || name == "helpshort" ||
         name == "helppackage" || name == "helpon" || name == "helpmatch" ||
         name == "version" || name == "only_check_args";
}

// One of the flags defined in this file (not another library's, nor
// Abseil's --flagfile and friends).
absl::CommandLineFlag* OurFlag(absl::string_view name) {
  absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  if (flag == nullptr || flag->IsRetired() ||
      !absl::EndsWith(flag->Filename(), "stress/flags.cc")) {
    return nullptr;
  }
  return flag;
}

}  // namespace

std::string ParseFlags(int argc, char** argv) {
  bool usage = false;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--" || !absl::ConsumePrefix(&arg, "-") || arg.empty()) {
      return absl::StrCat("unexpected argument '", argv[i], "' (only --flag=value arguments)");
    }
    absl::ConsumePrefix(&arg, "-");
    const size_t eq = arg.find('=');
    const absl::string_view name = arg.substr(0, eq);
    const bool has_value = eq != absl::string_view::npos;
    std::string value(has_value ? arg.substr(eq + 1) : absl::string_view());
    if (IsUsageFlag(name)) {
      usage = true;
      continue;
    }
    absl::CommandLineFlag* flag = OurFlag(name);
    if (flag == nullptr && absl::StartsWith(name, "no") && !has_value) {
      flag = OurFlag(name.substr(2));
      if (flag != nullptr && !flag->IsOfType<bool>()) flag = nullptr;
      if (flag != nullptr) value = "false";
    } else if (flag != nullptr && !has_value) {
      if (flag->IsOfType<bool>()) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return absl::StrCat("missing value for --", name);
      }
    }
    if (flag == nullptr) return absl::StrCat("unknown flag '", argv[i], "' (see --helpfull)");
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::StrCat("bad value for --", flag->Name(), ": ", error);
    }
  }
  if (usage) absl::ParseCommandLine(argc, argv);  // prints the usage and exits
  return "";
}

std::string ReplayFlag() { return absl::GetFlag(FLAGS_replay); }
bool MinimizeFlag() { return absl::GetFlag(FLAGS_minimize); }
std::string TraceOutFlag() { return absl::GetFlag(FLAGS_trace_out); }

program::StressConfig ConfigFromFlags() {
  program::StressConfig c;
#define FLOWCHECK_STRESS_READ_FLAG(type, name, def, uses, help) c.name = absl::GetFlag(FLAGS_##name);
  FLOWCHECK_STRESS_CONFIG_FIELDS(FLOWCHECK_STRESS_READ_FLAG)
#undef FLOWCHECK_STRESS_READ_FLAG
  return c;
}

}  // namespace stress
}  // namespace flowcheck
