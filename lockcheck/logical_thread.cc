// lockcheck/logical_thread.cc: see logical_thread.h. A LogicalThread is a
// ThreadRecord (internal/threads.h) that no OS thread owns.
#include "lockcheck/logical_thread.h"

#include <atomic>
#include <cstdio>

#include "lockcheck/internal/threads.h"
#include "lockcheck/lockdep.h"
#include "lockcheck/spinlock.h"

namespace lockcheck {
namespace {

using internal::ThreadRecord;

ThreadRecord* Rec(LogicalThread* t) { return reinterpret_cast<ThreadRecord*>(t); }
const ThreadRecord* Rec(const LogicalThread* t) { return reinterpret_cast<const ThreadRecord*>(t); }

// Only instrumented locks pass schedule points (schedule.h).
const BasicSpinLock<true>* AsLock(const void* lock) {
  return static_cast<const BasicSpinLock<true>*>(lock);
}

// Index of `lock` in `r`'s held stack, or -1.
int HeldIndex(const ThreadRecord* r, const void* lock) {
  int depth = internal::HeldDepth(internal::StateOf(r));
  for (int i = 0; i < depth; ++i) {
    if (r->held[i].lock.load(std::memory_order_relaxed) == lock) return i;
  }
  return -1;
}

}  // namespace

LogicalThread* CreateLogicalThread(const char* name) {
  ThreadRecord* r = internal::NewThreadRecord();
  LogicalThread* t = reinterpret_cast<LogicalThread*>(r);
  // SetThreadName names the current record: borrow it for a moment.
  LogicalThread* prev = SwitchLogicalThread(t);
  SetThreadName(name);
  SwitchLogicalThread(prev);
  return t;
}

LogicalThread* SwitchLogicalThread(LogicalThread* t) {
  ThreadRecord* prev = internal::tls_record;
  internal::tls_record = Rec(t);
  return reinterpret_cast<LogicalThread*>(prev);
}

LogicalThread* CurrentLogicalThread() {
  return reinterpret_cast<LogicalThread*>(internal::tls_record);
}

void CheckLogicalThreadExit() {
  ThreadRecord* self = internal::tls_record;
  if (self != nullptr && internal::HeldDepth(internal::StateOf(self)) > 0) {
    internal::ReportExitWithLocksHeld(self);
  }
}

void DestroyLogicalThread(LogicalThread* t) {
  ThreadRecord* r = Rec(t);
  r->waiting_for.store(nullptr, std::memory_order_relaxed);
  internal::RetireThreadRecord(r);
}

uint32_t LogicalThreadId(const LogicalThread* t) { return internal::IdOf(Rec(t)); }

std::string LogicalThreadLabel(const LogicalThread* t) { return internal::LabelOf(Rec(t)); }

bool LogicalThreadIrqsOn(const LogicalThread* t) {
  const ThreadRecord* r = Rec(t);
  const uint32_t state = internal::StateOf(r);
  return !internal::IrqsOff(state) && !internal::InHardirq(state);
}

bool LogicalThreadHolds(const LogicalThread* t, const void* lock) {
  return HeldIndex(Rec(t), lock) >= 0;
}

std::vector<std::string> LogicalThreadHeldLocks(const LogicalThread* t) {
  // HeldLocksOfSelf formats the current record's stack: borrow it.
  LogicalThread* prev = SwitchLogicalThread(const_cast<LogicalThread*>(t));
  std::vector<std::string> held = internal::HeldLocksOfSelf();
  SwitchLogicalThread(prev);
  return held;
}

void SetLogicalThreadWaitingFor(LogicalThread* t, const void* lock, const LogicalThread* holder) {
  ThreadRecord* r = Rec(t);
  int cls = 0;
  if (lock != nullptr && holder != nullptr) {
    int i = HeldIndex(Rec(holder), lock);
    if (i >= 0) cls = internal::ClassOfTag(Rec(holder)->held[i].tag.load(std::memory_order_relaxed));
  }
  r->waiting_class.store(cls, std::memory_order_relaxed);
  r->waiting_for.store(lock, std::memory_order_relaxed);
}

bool ScheduleLockIsHeld(const void* lock) { return AsLock(lock)->IsLocked(); }

std::string ScheduleLockLabel(const void* lock) {
  char buf[48];
  std::snprintf(buf, sizeof buf, " (%p)", lock);
  return ScheduleLockClassName(lock) + std::string(buf);
}

const char* ScheduleLockClassName(const void* lock) { return AsLock(lock)->class_name(); }

}  // namespace lockcheck
