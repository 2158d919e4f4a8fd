// stress/flags.cc: see flags.h. The flags are StressConfig's fields
// (FLOWCHECK_STRESS_CONFIG_FIELDS), so the flags, the library and the rerun
// command cannot disagree.
#include "stress/flags.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/strings.h"

namespace flowcheck {
namespace stress {
namespace {

// The parsed values: the flags' defaults (a StressConfig's, but for
// --progress_every) until ParseFlags sets them.
program::StressConfig g_config = [] {
  program::StressConfig c;
  c.progress_every = program::kFlagProgressEvery;
  return c;
}();
std::string g_replay;
bool g_minimize = false;
std::string g_trace_out;

std::string DefaultText(bool v) { return v ? "true" : "false"; }
std::string DefaultText(const std::string& v) { return "\"" + v + "\""; }
template <typename T>
std::string DefaultText(T v) {
  return StrCat(v);
}

// One row per flag: its name, whether it is a boolean, its help and
// default, and how a value's text is stored (false: not of its type).
struct Flag {
  const char* name;
  bool boolean;
  const char* help;
  std::string default_text;
  bool (*set)(const std::string& text);
};

// var: the global that holds the flag's value.
#define FLOWCHECK_FLAG_ROW(var, name, help)                                           \
  Flag{#name, std::is_same<decltype(var), bool>::value, help, DefaultText(var),        \
       [](const std::string& text) { return program::ParseFieldValue(text, &var); }}

const std::vector<Flag>& Flags() {
#define FLOWCHECK_STRESS_FLAG_ROW(type, name, def, uses, help) \
  FLOWCHECK_FLAG_ROW(g_config.name, name, help),
  static const std::vector<Flag> flags{
      FLOWCHECK_STRESS_CONFIG_FIELDS(FLOWCHECK_STRESS_FLAG_ROW)
      FLOWCHECK_FLAG_ROW(g_replay, replay,
                         "replay a schedule file written by a --sched run (no other flag but "
                         "--json_out)"),
      FLOWCHECK_FLAG_ROW(g_minimize, minimize,
                         "with --replay=FILE: write FILE's minimized schedule beside it "
                         "(FILE.min.schedule)"),
      FLOWCHECK_FLAG_ROW(g_trace_out, trace_out,
                         "with --replay=FILE: write the replayed execution's trace (JSON) here"),
  };
#undef FLOWCHECK_STRESS_FLAG_ROW
  return flags;
}

const Flag* Find(std::string_view name) {
  for (const Flag& f : Flags()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

// --help and its kin: every flag, its help and default; then exit 1, as
// Abseil's flags library (which stress_main used before) does.
enum Usage { kNoUsage, kPrintUsage, kExitZero };
Usage UsageFlag(std::string_view name) {
  if (name == "help" || name == "helpfull" || name == "helpshort" || name == "helppackage" ||
      name == "helpon" || name == "helpmatch") {
    return kPrintUsage;
  }
  if (name == "version" || name == "only_check_args") return kExitZero;
  return kNoUsage;
}

[[noreturn]] void PrintUsage(const char* program) {
  std::printf(
      "%s: flowcheck's multithreaded stress of the hfi1 flow layer (see docs/stress.md)\n\n"
      "  Flags from stress/flags.cc:\n",
      program);
  for (const Flag& f : Flags()) {
    std::printf("    --%s (%s); default: %s;\n", f.name, f.help, f.default_text.c_str());
  }
  std::fflush(stdout);
  std::exit(1);
}

}  // namespace

std::string ParseFlags(int argc, char** argv) {
  Usage usage = kNoUsage;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--" || !ConsumePrefix(&arg, "-") || arg.empty()) {
      return StrCat("unexpected argument '", argv[i], "' (only --flag=value arguments)");
    }
    ConsumePrefix(&arg, "-");
    const size_t eq = arg.find('=');
    const std::string_view name = arg.substr(0, eq);
    const bool has_value = eq != std::string_view::npos;
    std::string value(has_value ? arg.substr(eq + 1) : std::string_view());
    if (const Usage u = UsageFlag(name); u != kNoUsage) {
      if (u == kPrintUsage || usage == kNoUsage) usage = u;
      continue;
    }
    const Flag* flag = Find(name);
    if (flag == nullptr && StartsWith(name, "no") && !has_value) {
      flag = Find(name.substr(2));
      if (flag != nullptr && !flag->boolean) flag = nullptr;
      if (flag != nullptr) value = "false";
    } else if (flag != nullptr && !has_value) {
      if (flag->boolean) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return StrCat("missing value for --", name);
      }
    }
    if (flag == nullptr) return StrCat("unknown flag '", argv[i], "' (see --helpfull)");
    if (!flag->set(value)) {
      // Worded as Abseil's flags library worded it (stress_main's callers match it).
      return StrCat("bad value for --", flag->name, ": Illegal value '", value,
                    "' specified for flag '", flag->name, "'");
    }
  }
  if (usage == kPrintUsage) PrintUsage(argc > 0 ? argv[0] : "stress_main");
  if (usage == kExitZero) std::exit(0);
  return "";
}

std::string ReplayFlag() { return g_replay; }
bool MinimizeFlag() { return g_minimize; }
std::string TraceOutFlag() { return g_trace_out; }

program::StressConfig ConfigFromFlags() { return g_config; }

}  // namespace stress
}  // namespace flowcheck
