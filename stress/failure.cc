// stress/failure.cc: see failure.h.
#include "stress/failure.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"

extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace flowcheck {
namespace stress {
namespace {

// Written before the run's threads start, read by the failure paths (a signal
// handler among them): plain buffers, no allocation there.
char g_trailer[4096];
std::atomic<bool> g_armed{false};
std::atomic<bool> g_failing{false};
std::atomic<bool> g_trailer_printed{false};
StressConfig* g_config = nullptr;

void WriteAll(const char* s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    ssize_t w = write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

// Async-signal-safe: prints the seed and rerun lines once.
void PrintTrailerOnce() {
  if (!g_armed.load(std::memory_order_acquire)) return;
  if (g_trailer_printed.exchange(true)) return;
  WriteAll(g_trailer);
}

void OnAbort(int) {
  PrintTrailerOnce();
  signal(SIGABRT, SIG_DFL);
  raise(SIGABRT);
}

void OnSanitizerDeath() { PrintTrailerOnce(); }

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

std::string FailureText(const std::string& what, const std::string& detail,
                        const StressConfig& c) {
  return absl::StrCat("flowcheck: FAIL [", what, "] ", detail, "\n", "flowcheck: seed ", c.seed,
                      "\n", "flowcheck: rerun: ", RerunCommand(c), "\n");
}

void ArmFailureReporting(const StressConfig& c) {
  delete g_config;
  g_config = new StressConfig(c);
  std::string trailer =
      absl::StrCat("flowcheck: seed ", c.seed, "\nflowcheck: rerun: ", RerunCommand(c), "\n");
  std::snprintf(g_trailer, sizeof(g_trailer), "%s", trailer.c_str());
  g_trailer_printed.store(false);
  g_armed.store(true, std::memory_order_release);
  signal(SIGABRT, OnAbort);
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(OnSanitizerDeath);
}

void DisarmFailureReporting() {
  g_armed.store(false, std::memory_order_release);
  signal(SIGABRT, SIG_DFL);
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(nullptr);
}

void Fail(const std::string& what, const std::string& detail) {
  if (g_failing.exchange(true)) {
    // Another thread is reporting; it aborts the process.
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  StressConfig c = g_config != nullptr ? *g_config : StressConfig{};
  std::string text = FailureText(what, detail, c);
  g_trailer_printed.store(true);  // the text below carries seed and rerun
  std::fflush(stdout);
  WriteAll(text.c_str());
  if (!c.json_out.empty()) {
    std::ofstream json(c.json_out, std::ios::trunc);
    json << "{\n  \"result\": \"fail\",\n  \"failure\": \"" << JsonEscape(what)
         << "\",\n  \"detail\": \"" << JsonEscape(detail) << "\",\n  \"seed\": " << c.seed
         << ",\n  \"rerun\": \"" << JsonEscape(RerunCommand(c)) << "\"\n}\n";
  }
  std::abort();
}

}  // namespace stress
}  // namespace flowcheck
