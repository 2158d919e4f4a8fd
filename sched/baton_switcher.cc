// sched/baton_switcher.cc: logical threads on pooled OS threads that pass a
// baton (see switcher.h).
//
// One mutex guards `turn_` (the context allowed to run); every OS thread
// (the controller and each worker) waits on its own condition variable until
// the turn is its context's. All of it runs inside IgnoreScopes: TSan must not
// see the mutex hand-off as an edge between the logical threads (that would
// hide their races; docs/sched.md). Workers live as long as the switcher, one
// per logical thread alive at once, and are reused across executions.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "sched/sanitizers.h"
#include "sched/switcher.h"

namespace sched {
namespace internal {
namespace {

struct Worker;

struct BatonContext : Context {
  Worker* worker = nullptr;  // null: the controller, or a finished context
  ContextEntry entry = nullptr;
  void* arg = nullptr;
};

struct Worker {
  std::thread thread;
  std::condition_variable cv;
  BatonContext* assigned = nullptr;  // under the switcher's mutex
};

class BatonSwitcher : public Switcher {
 public:
  BatonSwitcher() = default;

  ~BatonSwitcher() override {
    {
      IgnoreScope ignore;
      std::lock_guard<std::mutex> lock(mu_);
      shutdown_ = true;
      for (auto& w : workers_) w->cv.notify_one();
    }
    for (auto& w : workers_) w->thread.join();
  }

  Context* controller() override { return &controller_; }

  Context* Create(ContextEntry entry, void* arg, const char* /*name*/) override {
    IgnoreScope ignore;
    auto* c = new BatonContext;
    c->entry = entry;
    c->arg = arg;
    std::lock_guard<std::mutex> lock(mu_);
    Worker* w = nullptr;
    for (auto& candidate : workers_) {
      if (candidate->assigned == nullptr) {
        w = candidate.get();
        break;
      }
    }
    if (w == nullptr) {
      workers_.push_back(std::make_unique<Worker>());
      w = workers_.back().get();
      w->thread = std::thread(&BatonSwitcher::WorkerLoop, this, w);
    }
    w->assigned = c;
    c->worker = w;
    return c;
  }

  void Switch(Context* from_base, Context* to_base) override {
    IgnoreScope ignore;
    auto* from = static_cast<BatonContext*>(from_base);
    std::unique_lock<std::mutex> lock(mu_);
    PassTo(static_cast<BatonContext*>(to_base));
    CvOf(from).wait(lock, [&] { return turn_ == from; });
  }

  void Finish(Context* from_base, Context* to_base) override {
    IgnoreScope ignore;
    auto* from = static_cast<BatonContext*>(from_base);
    std::lock_guard<std::mutex> lock(mu_);
    // Free the worker now: the controller may reuse it as soon as it runs.
    from->worker->assigned = nullptr;
    from->worker = nullptr;
    PassTo(static_cast<BatonContext*>(to_base));
  }

  void Destroy(Context* base) override {
    auto* c = static_cast<BatonContext*>(base);
    {
      IgnoreScope ignore;
      std::lock_guard<std::mutex> lock(mu_);
      if (c->worker != nullptr) c->worker->assigned = nullptr;  // never started
    }
    delete c;
  }

 private:
  // With mu_ held.
  void PassTo(BatonContext* to) {
    turn_ = to;
    CvOf(to).notify_one();
  }
  std::condition_variable& CvOf(BatonContext* c) {
    return c->worker != nullptr ? c->worker->cv : controller_cv_;
  }

  void WorkerLoop(Worker* w) {
    for (;;) {
      ContextEntry entry;
      void* arg;
      {
        IgnoreScope ignore;
        std::unique_lock<std::mutex> lock(mu_);
        w->cv.wait(lock,
                   [&] { return shutdown_ || (w->assigned != nullptr && turn_ == w->assigned); });
        if (shutdown_) return;
        entry = w->assigned->entry;
        arg = w->assigned->arg;
      }
      entry(arg);  // ends with Finish, which gives the turn away
    }
  }

  std::mutex mu_;
  BatonContext controller_;
  std::condition_variable controller_cv_;
  Context* turn_ = &controller_;
  bool shutdown_ = false;
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace

std::unique_ptr<Switcher> MakeBatonSwitcher() { return std::make_unique<BatonSwitcher>(); }

}  // namespace internal
}  // namespace sched
