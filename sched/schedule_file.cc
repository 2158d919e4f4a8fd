// sched/schedule_file.cc: the version 1 text format (docs/sched.md).
#include "sched/schedule_file.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "common/atomic_file.h"

namespace sched {
namespace {

constexpr int kDecisionsPerLine = 16;

std::string Hex(uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

bool ParseU64(const std::string& s, int base, uint64_t* out) {
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, base);
  if (errno != 0 || end == nullptr || *end != '\0') return false;
  *out = v;
  return true;
}

// "key=value" with a non-empty key and no spaces.
bool ParsePair(const std::string& s, std::string* key, std::string* value) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || s.find(' ') != std::string::npos) return false;
  *key = s.substr(0, eq);
  *value = s.substr(eq + 1);
  return true;
}

// FNV-1a 64.
// FNV-1a over bytes, not instrumented: the bytes are always this thread's
// own (a local string, the executable's read buffer), and under TSan each
// byte's read was a runtime call (for a 12 MB test binary, ~40% of a
// one-schedule replay's time).
__attribute__((no_sanitize("thread", "address", "undefined"))) uint64_t FnvBytes(
    const unsigned char* p, size_t n, uint64_t h) {
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

uint64_t Fnv(const std::string& text, uint64_t h = 0xcbf29ce484222325ull) {
  return FnvBytes(reinterpret_cast<const unsigned char*>(text.data()), text.size(), h);
}

// Everything a version 2 file records but its checksum line and 'end': the
// checksum is taken over exactly this text, re-formatted from what was
// parsed, so comments and line breaks do not matter, every value does.
std::string Body(const Schedule& s) {
  std::string o;
  o += "flowcheck-schedule " + std::to_string(kScheduleFormatVersion) + "\n";
  o += "# A controlled execution of a flowcheck scenario; replay: tools/reproduce.sh FILE\n";
  o += "scenario " + s.scenario + "\n";
  for (const auto& [k, v] : s.params) o += "param " + k + "=" + v + "\n";
  if (!s.target.empty()) o += "target " + s.target + "\n";
  o += "sanitizer " + s.sanitizer + "\n";
  o += "strategy " + s.strategy + "\n";
  for (const auto& [k, v] : s.strategy_params) o += "strategy-param " + k + "=" + v + "\n";
  o += "seed " + std::to_string(s.seed) + "\n";
  o += "execution " + std::to_string(s.execution) + "\n";
  o += "backend " + s.backend + "\n";
  o += "max-steps " + std::to_string(s.max_steps) + "\n";
  o += "lockcheck-reports " + s.lockcheck_reports + "\n";
  o += "failure " + s.failure + "\n";
  o += "trace-hash " + Hex(s.trace_hash) + "\n";
  o += "code " + Hex(s.code) + "\n";
  o += "decisions " + std::to_string(s.decisions.size()) + "\n";
  for (size_t i = 0; i < s.decisions.size(); ++i) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%d/%" PRIx64, s.decisions[i].thread, s.decisions[i].runnable);
    o += buf;
    o += (i + 1) % kDecisionsPerLine == 0 || i + 1 == s.decisions.size() ? "\n" : " ";
  }
  return o;
}

}  // namespace

uint64_t ExecutableHash() {
  static const uint64_t hash = [] {
    std::ifstream f("/proc/self/exe", std::ios::binary);
    if (!f) return uint64_t{0};
    uint64_t h = 0xcbf29ce484222325ull;
    static char buf[1 << 16];
    while (f.read(buf, sizeof buf) || f.gcount() > 0) {
      h = FnvBytes(reinterpret_cast<const unsigned char*>(buf), static_cast<size_t>(f.gcount()), h);
      if (!f) break;
    }
    return h;
  }();
  return hash;
}

std::string FormatSchedule(const Schedule& s) {
  const std::string body = Body(s);
  return body + "checksum " + Hex(Fnv(body)) + "\nend\n";
}

bool ParseSchedule(const std::string& text, Schedule* out, std::string* error) {
  Schedule s;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  auto fail = [&](const std::string& what) {
    *error = "line " + std::to_string(lineno) + ": " + what;
    return false;
  };
  std::set<std::string> seen;
  bool header = false, in_decisions = false, ended = false;
  uint64_t expected_decisions = 0, version = 0;
  std::string checksum;  // as written (version 2)
  int checksum_line = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    if (ended) return fail("text after 'end'");
    if (!header) {
      if (line.rfind("flowcheck-schedule ", 0) != 0 || !ParseU64(line.substr(19), 10, &version)) {
        return fail("not a flowcheck schedule file (expected 'flowcheck-schedule " +
                    std::to_string(kScheduleFormatVersion) + "' first)");
      }
      if (version != 1 && version != kScheduleFormatVersion) {
        return fail("format version " + std::to_string(version) + "; this build reads versions 1 and " +
                    std::to_string(kScheduleFormatVersion));
      }
      header = true;
      continue;
    }
    if (in_decisions) {
      if (line.rfind("checksum ", 0) == 0 && version >= 2) {
        if (!checksum.empty()) return fail("'checksum' given twice");
        checksum = line.substr(9);
        checksum_line = lineno;
        continue;
      }
      if (line == "end") {
        if (s.decisions.size() != expected_decisions) {
          return fail("'decisions " + std::to_string(expected_decisions) + "' but " +
                      std::to_string(s.decisions.size()) + " listed");
        }
        ended = true;
        continue;
      }
      if (!checksum.empty()) return fail("decisions after 'checksum'");
      std::istringstream tokens(line);
      std::string tok;
      while (tokens >> tok) {
        size_t slash = tok.find('/');
        uint64_t thread = 0, runnable = 0;
        if (slash == std::string::npos || !ParseU64(tok.substr(0, slash), 10, &thread) ||
            !ParseU64(tok.substr(slash + 1), 16, &runnable)) {
          return fail("bad decision '" + tok + "' (expected THREAD/RUNNABLE_HEX_MASK)");
        }
        if (thread >= 64 || !(runnable >> thread & 1)) {
          return fail("decision '" + tok + "' chooses a thread that is not in its runnable set");
        }
        s.decisions.push_back({static_cast<int>(thread), runnable});
      }
      continue;
    }
    size_t sp = line.find(' ');
    const std::string key = line.substr(0, sp);
    const std::string value = sp == std::string::npos ? "" : line.substr(sp + 1);
    if (value.empty()) return fail("'" + key + "' has no value");
    const bool repeatable = key == "param" || key == "strategy-param";
    if (!repeatable && !seen.insert(key).second) return fail("'" + key + "' given twice");
    std::string k, v;
    if (key == "scenario") {
      s.scenario = value;
    } else if (key == "param" || key == "strategy-param") {
      if (!ParsePair(value, &k, &v)) return fail("expected '" + key + " KEY=VALUE'");
      auto& m = key == "param" ? s.params : s.strategy_params;
      if (!m.emplace(k, v).second) return fail(key + " '" + k + "' given twice");
    } else if (key == "target") {
      s.target = value;
    } else if (key == "sanitizer") {
      s.sanitizer = value;
    } else if (key == "strategy") {
      s.strategy = value;
    } else if (key == "seed" || key == "execution" || key == "max-steps") {
      uint64_t n = 0;
      if (!ParseU64(value, 10, &n)) return fail("'" + key + "' is not a number: " + value);
      (key == "seed" ? s.seed : key == "execution" ? s.execution : s.max_steps) = n;
    } else if (key == "backend") {
      if (value != "fiber" && value != "baton") return fail("unknown backend '" + value + "'");
      s.backend = value;
    } else if (key == "lockcheck-reports") {
      if (value != "end" && value != "defer" && value != "record") {
        return fail("expected 'lockcheck-reports end|defer|record'");
      }
      s.lockcheck_reports = value;
    } else if (key == "failure") {
      s.failure = value;
    } else if (key == "trace-hash") {
      if (value.size() != 16 || !ParseU64(value, 16, &s.trace_hash)) {
        return fail("'trace-hash' is not 16 hex digits: " + value);
      }
    } else if (key == "code" && version >= 2) {
      if (value.size() != 16 || !ParseU64(value, 16, &s.code)) {
        return fail("'code' is not 16 hex digits: " + value);
      }
    } else if (key == "decisions") {
      if (!ParseU64(value, 10, &expected_decisions)) return fail("'decisions' is not a number");
      in_decisions = true;
    } else {
      return fail("unknown key '" + key + "'");
    }
  }
  if (!header) return fail("empty file: not a flowcheck schedule file");
  if (!ended) return fail("truncated: no 'end' line");
  for (const char* required :
       {"scenario", "strategy", "max-steps", "failure", "trace-hash", "decisions"}) {
    if (seen.count(required) == 0) {
      lineno = 0;
      *error = std::string("missing '") + required + "'";
      return false;
    }
  }
  if (version >= 2) {
    lineno = checksum_line;
    if (seen.count("code") == 0) return fail("missing 'code'");
    if (checksum.empty()) return fail("missing 'checksum' (before 'end')");
    const std::string want = Hex(Fnv(Body(s)));
    if (checksum != want) {
      return fail("checksum mismatch: the file records " + checksum + ", its content gives " +
                  want + ": the file was edited or corrupted (a schedule is replayed only as "
                  "it was written)");
    }
  }
  *out = std::move(s);
  return true;
}

bool LoadScheduleFile(const std::string& path, Schedule* out, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  std::stringstream buf;
  buf << f.rdbuf();
  std::string why;
  if (!ParseSchedule(buf.str(), out, &why)) {
    *error = path + ": " + why;
    return false;
  }
  return true;
}

std::string WriteScheduleFile(const std::string& path, const Schedule& s) {
  return flowcheck::WriteFileAtomically(path, FormatSchedule(s));
}

}  // namespace sched
