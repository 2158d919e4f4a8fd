// core/known_races.cc: NOT KERNEL; see known_races.h.
#include "core/known_races.h"

#include <cstdlib>
#include <cstring>

#include "common/sanitizers.h"

namespace {

// Whether the known races are reported (known_races.h).
bool ShowKernelRaces() {
  static const bool show = [] {
    const char* v = std::getenv("FLOWCHECK_TSAN_KERNEL_RACES");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return show;
}

}  // namespace

u32 hfi1_r11_position_in_queue(u32 (*position)(hfi1_qp_priv*, tid_queue*), hfi1_qp_priv* qpriv,
                               tid_queue* queue) {
  if (ShowKernelRaces()) return position(qpriv, queue);
  flowcheck::TsanIgnoreAccesses hide;  // the kernel's read, kept
  return position(qpriv, queue);
}
