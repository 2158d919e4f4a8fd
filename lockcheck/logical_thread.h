// lockcheck/logical_thread.h: lockcheck's per-thread state for logical
// threads, the threads a controlled scheduler runs one at a time (as fibers on
// one OS thread, or on pooled OS threads).
//
// lockcheck keeps one record per thread (its held-lock stack, emulated IRQ
// state, id and name), reached through one thread-local pointer. A scheduler
// makes a record per logical thread and, at every context switch, makes the
// incoming logical thread's record the OS thread's current one. Every rule
// then holds per logical thread: two logical threads taking one lock are two
// threads, IRQ state follows the logical thread, a logical thread that ends
// holding a lock is kExitWithLocksHeld, and reports name the logical thread.
//
//   LogicalThread* t = lockcheck::CreateLogicalThread("worker-1");
//   LogicalThread* prev = lockcheck::SwitchLogicalThread(t);  // t runs here
//   ... t's code: spin_lock(...) ...
//   lockcheck::CheckLogicalThreadExit();          // t ends: held locks?
//   lockcheck::SwitchLogicalThread(prev);
//   lockcheck::DestroyLogicalThread(t);
//
// The queries below read the owning thread's relaxed atomics: they add no
// happens-before edge (as everything in lockcheck). They are meant for a
// scheduler that runs one logical thread at a time, so what they read is
// exact there.
#ifndef FLOWCHECK_LOCKCHECK_LOGICAL_THREAD_H_
#define FLOWCHECK_LOCKCHECK_LOGICAL_THREAD_H_

#include <cstdint>
#include <string>
#include <vector>

namespace lockcheck {

// Opaque: lockcheck's record of one logical thread.
struct LogicalThread;

// A new record with a new lockcheck thread id (never reused), named `name`
// (at most 31 characters kept), IRQs on, no locks held. Not current anywhere.
LogicalThread* CreateLogicalThread(const char* name);

// Makes `t` the calling OS thread's current lockcheck thread and returns the
// previous one. nullptr as the previous value means "the OS thread's own
// record, or none yet"; switching back to it restores exactly that. Cheap
// (one thread-local store): call it at every context switch.
LogicalThread* SwitchLogicalThread(LogicalThread* t);

// The calling OS thread's current logical thread (nullptr: its own record).
LogicalThread* CurrentLogicalThread();

// At the end of the current logical thread: kExitWithLocksHeld if it still
// holds locks (reported as that thread, through the installed handler).
void CheckLogicalThreadExit();

// Frees `t`'s record for reuse. `t` must be current on no OS thread. Locks it
// still holds stay locked; its held stack is forgotten.
void DestroyLogicalThread(LogicalThread* t);

// lockcheck's id of `t` (as in reports: `thread 3 "worker-1"`).
uint32_t LogicalThreadId(const LogicalThread* t);
// `thread 3 "worker-1"`.
std::string LogicalThreadLabel(const LogicalThread* t);
// True when `t` runs with emulated IRQs enabled and is not in a hardirq
// handler: when a real interrupt could arrive on its CPU.
bool LogicalThreadIrqsOn(const LogicalThread* t);
// True when `t` holds `lock` (a lock pointer as a schedule hook receives it).
bool LogicalThreadHolds(const LogicalThread* t, const void* lock);
// `t`'s held locks, outermost first, as "class (instance) acquired at
// function" (the form of Report::held).
std::vector<std::string> LogicalThreadHeldLocks(const LogicalThread* t);
// Records that `t` waits for `lock`, held by `holder` (nullptr: none or
// unknown), so that DescribeAllThreads shows "waiting for ... held by ...";
// lock nullptr clears it.
void SetLogicalThreadWaitingFor(LogicalThread* t, const void* lock, const LogicalThread* holder);

// On the lock pointer a schedule hook receives (always an instrumented
// spinlock): whether some thread holds it, and its label,
// "&rcd->exp_lock (0x7ffd5b1c2a40)".
bool ScheduleLockIsHeld(const void* lock);
std::string ScheduleLockLabel(const void* lock);
// Its class name alone, "&rcd->exp_lock": stable from run to run.
const char* ScheduleLockClassName(const void* lock);

}  // namespace lockcheck

#endif  // FLOWCHECK_LOCKCHECK_LOGICAL_THREAD_H_
