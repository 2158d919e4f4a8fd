// core/workqueue.cc: see workqueue.h.
#include "core/workqueue.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "lockcheck/lockdep.h"
#include "lockcheck/schedule.h"

namespace {

[[noreturn]] void WorkBug(const char* what, const work_struct* work) {
  std::fprintf(stderr, "workqueue model: %s (work %p)\n", what,
               static_cast<const void*>(work));
  std::abort();
}

}  // namespace

bool queue_work_on(int /*cpu*/, workqueue_struct* wq, work_struct* work) {
  if (work->func == nullptr) WorkBug("queue_work_on of an item never INIT_WORK'ed", work);
  // A schedule point before the queue's lock is taken: mu_ is never held
  // across one (a controlled scheduler runs every thread on one OS thread,
  // where a held std::mutex could not be waited for).
  lockcheck::SchedulePointNamed("queue_work_on");
  std::lock_guard<std::mutex> l(wq->mu_);
  // The PENDING bit is claimed under the queue's lock so that cancel_work_sync
  // always finds a pending item on the queue.
  if (work->data.fetch_or(WORK_STRUCT_PENDING, std::memory_order_acq_rel) &
      WORK_STRUCT_PENDING) {
    return false;
  }
  work->wq.store(wq, std::memory_order_relaxed);
  wq->queue_.push_back(work);
  wq->cv_.notify_all();
  return true;
}

bool cancel_work_sync(work_struct* work) {
  if (work->func == nullptr) WorkBug("cancel_work_sync of an item never INIT_WORK'ed", work);
  workqueue_struct* wq = work->wq.load(std::memory_order_relaxed);
  if (wq == nullptr) return false;  // never queued
  std::unique_lock<std::mutex> l(wq->mu_);
  bool was_pending = false;
  auto it = std::find(wq->queue_.begin(), wq->queue_.end(), work);
  if (it != wq->queue_.end()) {
    wq->queue_.erase(it);
    work->data.fetch_and(~WORK_STRUCT_PENDING, std::memory_order_acq_rel);
    was_pending = true;
  }
  for (;;) {
    auto r = std::find(wq->running_.begin(), wq->running_.end(), work);
    if (r == wq->running_.end()) break;
    if (wq->running_on_[r - wq->running_.begin()] == std::this_thread::get_id()) {
      WorkBug("cancel_work_sync called from the work item itself (deadlock)", work);
    }
    wq->cv_.wait(l);
  }
  return was_pending;
}

workqueue_struct::workqueue_struct(std::string name) : name_(std::move(name)) {}

workqueue_struct::~workqueue_struct() {
  // Pending items are forgotten without being touched: they may be gone
  // already (their owners often die first, e.g. at the end of a test).
  Stop();
}

work_struct* workqueue_struct::TakeLocked() {
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    work_struct* w = *it;
    if (std::find(running_.begin(), running_.end(), w) != running_.end()) continue;
    queue_.erase(it);
    // As the kernel's process_one_work: clear PENDING before the function
    // runs, so the function (or anyone) may queue the item again.
    w->data.fetch_and(~WORK_STRUCT_PENDING, std::memory_order_acq_rel);
    running_.push_back(w);
    running_on_.push_back(std::this_thread::get_id());
    return w;
  }
  return nullptr;
}

void workqueue_struct::Execute(work_struct* work) {
  // PENDING is cleared and the item marked running, mu_ not held: the
  // kernel's window in which the item can be queued again before it runs.
  lockcheck::SchedulePointNamed("work item about to run");
  work->func(work);
  std::lock_guard<std::mutex> l(mu_);
  auto r = std::find(running_.begin(), running_.end(), work);
  running_on_.erase(running_on_.begin() + (r - running_.begin()));
  running_.erase(r);
  ++executed_;
  cv_.notify_all();
}

bool workqueue_struct::RunOne() {
  work_struct* w;
  {
    std::lock_guard<std::mutex> l(mu_);
    w = TakeLocked();
  }
  if (w == nullptr) return false;
  Execute(w);
  return true;
}

size_t workqueue_struct::RunAll(size_t max_items) {
  size_t n = 0;
  while (n < max_items && RunOne()) ++n;
  return n;
}

std::vector<const work_struct*> workqueue_struct::Pending() const {
  std::lock_guard<std::mutex> l(mu_);
  return std::vector<const work_struct*>(queue_.begin(), queue_.end());
}

size_t workqueue_struct::PendingInto(const work_struct** out, size_t capacity) const {
  std::lock_guard<std::mutex> l(mu_);
  const size_t n = queue_.size();
  for (size_t i = 0; i < n && i < capacity; ++i) out[i] = queue_[i];
  return n;
}

size_t workqueue_struct::pending_count() const {
  std::lock_guard<std::mutex> l(mu_);
  return queue_.size();
}

uint64_t workqueue_struct::executed() const {
  std::lock_guard<std::mutex> l(mu_);
  return executed_;
}

void workqueue_struct::Start(int nthreads) {
  std::lock_guard<std::mutex> l(mu_);
  stopping_ = false;
  for (int i = 0; i < nthreads; ++i) {
    int index = static_cast<int>(workers_.size());
    workers_.emplace_back([this, index] { WorkerLoop(index); });
  }
}

void workqueue_struct::Stop() {
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
    workers.swap(workers_);
    cv_.notify_all();
  }
  for (std::thread& t : workers) t.join();
}

void workqueue_struct::WaitIdle() {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait(l, [this] { return queue_.empty() && running_.empty(); });
}

void workqueue_struct::WorkerLoop(int index) {
  std::string thread_name = "kworker/" + name_ + ":" + std::to_string(index);
  lockcheck::SetThreadName(thread_name.c_str());
  for (;;) {
    work_struct* w = nullptr;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [&] { return stopping_ || (w = TakeLocked()) != nullptr; });
      if (w == nullptr) return;  // stopping
    }
    Execute(w);
  }
}
