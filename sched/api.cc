// sched/api.cc: sched.h's functions, forwarded to the running Runtime (a
// no-op outside a run).
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "sched/runtime.h"
#include "sched/sched.h"

namespace sched {
namespace {

internal::Runtime* Running() { return internal::g_runtime.load(std::memory_order_relaxed); }

[[noreturn]] void NotInARun(const char* what) {
  std::fprintf(stderr, "flowcheck: sched: %s called outside sched::Run\n", what);
  std::abort();
}

}  // namespace

ThreadId Spawn(std::string name, std::function<void()> body, ThreadOptions options) {
  internal::Runtime* rt = Running();
  if (rt == nullptr) NotInARun("sched::Spawn");
  return rt->Spawn(std::move(name), std::move(body), options);
}

void Point(const char* label) {
  if (internal::Runtime* rt = Running()) rt->Point(internal::PointKind::kPoint, label);
}

void Yield() {
  if (internal::Runtime* rt = Running()) rt->Point(internal::PointKind::kYield, "yield");
}

void BlockUntil(const char* what, std::function<bool()> ready) {
  if (internal::Runtime* rt = Running()) rt->BlockUntil(what, std::move(ready));
}

void Join(ThreadId t) {
  if (internal::Runtime* rt = Running()) rt->Join(t);
}

void AtEnd(std::function<void()> check) {
  internal::Runtime* rt = Running();
  if (rt == nullptr) NotInARun("sched::AtEnd");
  rt->AtEnd(std::move(check));
}

void Fail(const std::string& message) {
  internal::Runtime* rt = Running();
  if (rt == nullptr) {
    std::fprintf(stderr, "flowcheck: FAIL [check] %s (outside sched::Run)\n", message.c_str());
    std::abort();
  }
  rt->Fail(message);
}

void SetStateProbe(std::function<std::string()> probe) {
  if (internal::Runtime* rt = Running()) rt->SetStateProbe(std::move(probe));
}

bool UnderControl() { return CurrentThread() >= 0; }

uint64_t ProgramIndex() {
  internal::Runtime* rt = Running();
  return rt == nullptr ? 0 : rt->program();
}

ThreadId CurrentThread() {
  internal::Runtime* rt = Running();
  return rt != nullptr ? rt->CurrentId() : -1;
}

}  // namespace sched
