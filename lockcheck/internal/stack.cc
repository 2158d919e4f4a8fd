#include "lockcheck/internal/stack.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "absl/base/attributes.h"
#include "absl/debugging/stacktrace.h"
#include "absl/debugging/symbolize.h"
#include "lockcheck/internal/threads.h"
#include "lockcheck/internal/tsan.h"

namespace lockcheck {
namespace internal {
namespace {

// Symbolizes `pc` (a return address, so pc - 1 is inside the call) into
// `out`; false if unknown. Abseil's symbolizer keeps caches guarded by its
// own locks: never let TSan see them as synchronization between our threads.
bool SymbolizeInto(const void* pc, char* out, int size) {
  TsanIgnoreScope ignore;
  const char* p = static_cast<const char*>(pc);
  return absl::Symbolize(p - 1, out, size);
}

}  // namespace

ABSL_ATTRIBUTE_NOINLINE StackTrace CaptureStack() {
  StackTrace st;
  {
    TsanIgnoreScope ignore;
    st.depth = absl::GetStackTrace(st.pcs, kMaxFrames, /*skip_count=*/1);
  }
  st.thread = CurrentThreadLabel();
  return st;
}

std::string SymbolizeReturnAddress(const void* pc) {
  char buf[512];
  if (SymbolizeInto(pc, buf, sizeof buf)) return buf;
  std::snprintf(buf, sizeof buf, "%p", pc);
  return buf;
}

std::string FormatStack(const StackTrace& stack, const char* indent) {
  std::string out;
  bool skipping = true;
  int n = 0;
  for (int i = 0; i < stack.depth; ++i) {
    char sym[512];
    bool known = SymbolizeInto(stack.pcs[i], sym, sizeof sym);
    if (skipping && known && std::strncmp(sym, "lockcheck::", 11) == 0) continue;
    skipping = false;
    char line[640];
    std::snprintf(line, sizeof line, "%s#%d %p %s\n", indent, n++, stack.pcs[i],
                  known ? sym : "(unknown)");
    out += line;
  }
  if (out.empty()) out = std::string(indent) + "(no stack)\n";
  return out;
}

}  // namespace internal
}  // namespace lockcheck
