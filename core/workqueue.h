// core/workqueue.h: the kernel's work items and workqueues, modelled so that
// tests decide when deferred work runs.
//
//   INIT_WORK(&priv->tid_rdma.trigger_work, tid_rdma_trigger_resume);
//   queue_work_on(cpu, wq, &work);   // false if already pending (no new item)
//   cancel_work_sync(&work);         // true if it was pending; waits if running
//
// A workqueue_struct runs its items in one of two ways, freely mixed:
//  * deterministically, on the calling thread: RunOne() runs the oldest
//    pending item, RunAll() runs until none is pending (fuzz, unit tests);
//  * on worker threads: Start(n) ... Stop() (stress tests).
// As in the kernel, the PENDING bit is cleared just before the function runs
// (so the item can be queued again while it runs), and one item never runs on
// two threads at once: an item queued while it runs waits for that run.
//
// Items are run with no lock held; RunOne/RunAll must likewise be called with
// no instrumented lock held (the work functions take s_lock themselves).
// Synchronization is std::mutex/std::condition_variable, which gives TSan the
// same happens-before edge queue -> run that the kernel's pool lock gives.
#ifndef FLOWCHECK_CORE_WORKQUEUE_H_
#define FLOWCHECK_CORE_WORKQUEUE_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

struct work_struct;
struct workqueue_struct;
using work_func_t = void (*)(work_struct* work);

inline constexpr unsigned long WORK_STRUCT_PENDING = 1UL;  // bit 0 of data

struct work_struct {
  // bit 0: pending. Atomic as in the kernel (work->data is an atomic_long_t).
  std::atomic<unsigned long> data{0};
  work_func_t func = nullptr;
  // Model: the queue the item was last queued on (the kernel finds it through
  // data's pool pointer); cancel_work_sync needs it.
  std::atomic<workqueue_struct*> wq{nullptr};
};

// INIT_WORK(work, func): the item is idle (not pending) and runs `func`.
inline void INIT_WORK(work_struct* work, work_func_t func) {
  work->data.store(0, std::memory_order_relaxed);
  work->func = func;
  work->wq.store(nullptr, std::memory_order_relaxed);
}

inline bool work_pending(const work_struct* work) {
  return (work->data.load(std::memory_order_acquire) & WORK_STRUCT_PENDING) != 0;
}

// Queues `work` on `wq` unless it is already pending. Returns true if it was
// queued, false if it was already pending (the caller keeps whatever it meant
// to hand to the item, e.g. a QP reference). `cpu` is ignored by the model.
bool queue_work_on(int cpu, workqueue_struct* wq, work_struct* work);

// Takes `work` off its queue if pending and waits for a running instance to
// finish. Returns true if it was pending. Must not be called from `work`
// itself (the kernel deadlocks; the model aborts with a message). Cancelling
// an item that was never INIT_WORK'ed aborts (bug 12 of docs/kernel-hazards.md, "Historical bugs": the kernel WARNs).
bool cancel_work_sync(work_struct* work);

struct workqueue_struct {
 public:
  explicit workqueue_struct(std::string name);
  // Stops the workers. Pending items are forgotten, not touched (no run, no
  // PENDING change): the kernel drains first; here owners may already be gone.
  ~workqueue_struct();
  workqueue_struct(const workqueue_struct&) = delete;
  workqueue_struct& operator=(const workqueue_struct&) = delete;

  // Deterministic execution on the calling thread. RunOne runs the oldest
  // pending item not currently running elsewhere; returns false if none.
  bool RunOne();
  // Runs items until none is pending or `max_items` ran; returns how many ran.
  size_t RunAll(size_t max_items = SIZE_MAX);

  // Pending items, oldest first (a snapshot).
  std::vector<const work_struct*> Pending() const;
  // The same without allocating: copies the first min(count, capacity)
  // pending items, oldest first, to out[] and returns how many are pending
  // (possibly more than `capacity`). For checkers that run after every step.
  size_t PendingInto(const work_struct** out, size_t capacity) const;
  size_t pending_count() const;
  // Total items run since creation.
  uint64_t executed() const;

  // Worker threads (named "kworker/<name>:<i>" for lockcheck reports).
  void Start(int nthreads);
  // Stops and joins the workers after their current item; pending items stay
  // pending (RunAll can drain them).
  void Stop();
  // With workers running: blocks until nothing is pending or running.
  void WaitIdle();

  const std::string& name() const { return name_; }

 private:
  friend bool queue_work_on(int, workqueue_struct*, work_struct*);
  friend bool cancel_work_sync(work_struct*);

  // Pops the next runnable item (oldest pending, not running), clears its
  // PENDING bit and marks it running. Requires mu_.
  work_struct* TakeLocked();
  void Execute(work_struct* work);  // runs it, then unmarks it
  void WorkerLoop(int index);

  const std::string name_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<work_struct*> queue_;          // pending, oldest first
  std::vector<work_struct*> running_;       // items running now
  std::vector<std::thread::id> running_on_; // running_[i] runs on running_on_[i]
  std::vector<std::thread> workers_;
  bool stopping_ = false;
  uint64_t executed_ = 0;
};

#endif  // FLOWCHECK_CORE_WORKQUEUE_H_
