// lockcheck/internal/stack.h: raw stack capture (cheap, at the moment a rule's
// evidence is first seen) and symbolization (only when a report is written).
#ifndef FLOWCHECK_LOCKCHECK_INTERNAL_STACK_H_
#define FLOWCHECK_LOCKCHECK_INTERNAL_STACK_H_

#include <string>

namespace lockcheck {
namespace internal {

inline constexpr int kMaxFrames = 32;

struct StackTrace {
  void* pcs[kMaxFrames];
  int depth = 0;
  std::string thread;  // who captured it: `thread 3 "qp-3"`
};

// The calling thread's stack, raw. Never inlined, so the frames are stable.
StackTrace CaptureStack();

// One line per frame, `indent` first: "#3 0x55d0c2a1b2c3 kern_reserve_flow()";
// a frame with no symbol: "#7 0x7f6d2ec871f5 (libc.so.6+0x891f5)" (its
// object and offset), "(unknown)" outside every loaded object.
// Leading frames inside lockcheck itself (functions in namespace lockcheck)
// are dropped, so frame #0 is the caller of the lockcheck operation.
std::string FormatStack(const StackTrace& stack, const char* indent);

// The function containing return address `pc` ("Foo()"), or its hex value.
std::string SymbolizeReturnAddress(const void* pc);

}  // namespace internal
}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_INTERNAL_STACK_H_
