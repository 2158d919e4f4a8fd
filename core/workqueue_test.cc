// The work queue model: PENDING semantics, deterministic draining, cancel,
// and worker threads (non-reentrant items, cancel waits for a running one).
#include "core/workqueue.h"

#include <atomic>
#include <string>
#include <utility>
#include <future>
#include <thread>
#include <vector>

#include "core/list.h"
#include "lockcheck/schedule.h"
#include "gtest/gtest.h"

namespace {

struct Counted {
  work_struct work;
  std::atomic<int> runs{0};
  std::atomic<int> requeue{0};  // times to queue itself again from inside
  workqueue_struct* wq = nullptr;
  bool pending_inside = true;
};

void CountedFn(work_struct* w) {
  Counted* c = container_of(w, Counted, work);
  c->pending_inside = work_pending(w);
  c->runs.fetch_add(1);
  if (c->requeue.load() > 0) {
    c->requeue.fetch_sub(1);
    queue_work_on(0, c->wq, w);
  }
}

TEST(Workqueue, QueueingAPendingItemReturnsFalse) {
  workqueue_struct wq("t");
  Counted c;
  INIT_WORK(&c.work, CountedFn);
  EXPECT_TRUE(queue_work_on(0, &wq, &c.work));
  EXPECT_FALSE(queue_work_on(0, &wq, &c.work));
  EXPECT_EQ(wq.pending_count(), 1u);
  EXPECT_TRUE(wq.RunOne());
  EXPECT_EQ(c.runs.load(), 1);
  EXPECT_FALSE(wq.RunOne());
  EXPECT_TRUE(queue_work_on(0, &wq, &c.work));  // idle again
}

TEST(Workqueue, OldestFirstAndPendingClearedBeforeTheFunctionRuns) {
  workqueue_struct wq("t");
  Counted a, b;
  INIT_WORK(&a.work, CountedFn);
  INIT_WORK(&b.work, CountedFn);
  queue_work_on(0, &wq, &b.work);
  queue_work_on(0, &wq, &a.work);
  ASSERT_EQ(wq.Pending().front(), &b.work);
  wq.RunOne();
  EXPECT_EQ(b.runs.load(), 1);
  EXPECT_EQ(a.runs.load(), 0);
  EXPECT_FALSE(b.pending_inside);
}

TEST(Workqueue, PendingIntoCopiesWhatFitsAndCountsAll) {
  workqueue_struct wq("t");
  Counted a, b, c;
  for (Counted* x : {&a, &b, &c}) INIT_WORK(&x->work, CountedFn);
  const work_struct* out[2] = {nullptr, nullptr};
  EXPECT_EQ(wq.PendingInto(out, 2), 0u);
  queue_work_on(0, &wq, &c.work);
  queue_work_on(0, &wq, &a.work);
  queue_work_on(0, &wq, &b.work);
  EXPECT_EQ(wq.PendingInto(out, 2), 3u);  // all counted, two copied
  EXPECT_EQ(out[0], &c.work);
  EXPECT_EQ(out[1], &a.work);
  wq.RunOne();
  EXPECT_EQ(wq.PendingInto(out, 2), 2u);
  EXPECT_EQ(out[0], &a.work);
  EXPECT_EQ(out[1], &b.work);
}

TEST(Workqueue, RunAllDrainsItemsQueuedWhileRunning) {
  workqueue_struct wq("t");
  Counted c;
  c.wq = &wq;
  c.requeue = 3;
  INIT_WORK(&c.work, CountedFn);
  queue_work_on(0, &wq, &c.work);
  EXPECT_EQ(wq.RunAll(), 4u);
  EXPECT_EQ(c.runs.load(), 4);
  EXPECT_EQ(wq.executed(), 4u);
}

TEST(Workqueue, CancelTakesAPendingItemOffAndSaysSo) {
  workqueue_struct wq("t");
  Counted c;
  INIT_WORK(&c.work, CountedFn);
  EXPECT_FALSE(cancel_work_sync(&c.work));  // never queued
  queue_work_on(0, &wq, &c.work);
  EXPECT_TRUE(cancel_work_sync(&c.work));
  EXPECT_FALSE(work_pending(&c.work));
  EXPECT_EQ(wq.pending_count(), 0u);
  EXPECT_FALSE(cancel_work_sync(&c.work));
  EXPECT_EQ(c.runs.load(), 0);
}

TEST(WorkqueueDeathTest, CancelOfAnItemNeverInitialisedAborts) {
  work_struct never_initialised;
  EXPECT_DEATH(cancel_work_sync(&never_initialised), "never INIT_WORK");
}

TEST(Workqueue, WorkersRunEveryQueuedItemExactlyOnce) {
  workqueue_struct wq("t");
  constexpr int kItems = 8, kThreads = 3, kRounds = 300;
  std::vector<Counted> items(kItems);
  for (Counted& c : items) INIT_WORK(&c.work, CountedFn);
  wq.Start(2);
  std::atomic<int> queued{0};
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r) {
        for (Counted& c : items) queued += queue_work_on(0, &wq, &c.work);
      }
    });
  }
  for (std::thread& t : producers) t.join();
  wq.WaitIdle();
  wq.Stop();
  int runs = 0;
  for (Counted& c : items) runs += c.runs.load();
  EXPECT_EQ(runs, queued.load());
}

struct Exclusive {
  work_struct work;
  workqueue_struct* wq;
  std::atomic<int> in_flight{0};
  std::atomic<int> max_in_flight{0};
  std::atomic<int> left{200};
};

void ExclusiveFn(work_struct* w) {
  Exclusive* e = container_of(w, Exclusive, work);
  int now = e->in_flight.fetch_add(1) + 1;
  int seen = e->max_in_flight.load();
  while (now > seen && !e->max_in_flight.compare_exchange_weak(seen, now)) {
  }
  // Queue ourselves again while running: the other worker must not start us.
  if (e->left.fetch_sub(1) > 0) queue_work_on(0, e->wq, w);
  std::this_thread::yield();
  e->in_flight.fetch_sub(1);
}

TEST(Workqueue, AnItemNeverRunsOnTwoWorkersAtOnce) {
  workqueue_struct wq("t");
  Exclusive e;
  e.wq = &wq;
  INIT_WORK(&e.work, ExclusiveFn);
  wq.Start(3);
  queue_work_on(0, &wq, &e.work);
  while (e.left.load() > 0) std::this_thread::yield();
  wq.WaitIdle();
  wq.Stop();
  EXPECT_EQ(e.max_in_flight.load(), 1);
}

struct Blocking {  // standard layout for container_of: pointers only
  work_struct work;
  std::promise<void>* started;
  std::shared_future<void>* release;
  std::atomic<bool> finished{false};
};

void BlockingFn(work_struct* w) {
  Blocking* b = container_of(w, Blocking, work);
  b->started->set_value();
  b->release->wait();
  b->finished = true;
}

TEST(Workqueue, CancelWaitsForARunningItemToFinish) {
  workqueue_struct wq("t");
  Blocking b;
  std::promise<void> started, release;
  std::shared_future<void> released = release.get_future().share();
  b.started = &started;
  b.release = &released;
  INIT_WORK(&b.work, BlockingFn);
  wq.Start(1);
  queue_work_on(0, &wq, &b.work);
  started.get_future().wait();
  bool finished_when_cancel_returned = false;
  bool cancel_result = true;
  std::thread canceller([&] {
    cancel_result = cancel_work_sync(&b.work);
    finished_when_cancel_returned = b.finished.load();
  });
  release.set_value();
  canceller.join();
  wq.Stop();
  EXPECT_TRUE(finished_when_cancel_returned);
  EXPECT_FALSE(cancel_result);  // it was running, not pending
}

// The work queue's schedule points (lockcheck::SchedulePointNamed) come
// before queue_work_on takes the queue's lock and before an item runs, with
// that lock free: a controlled scheduler may switch threads there, and the
// hook here takes the lock itself (pending_count) to show it is not held.
struct PointLog {
  workqueue_struct* wq;
  std::vector<std::pair<std::string, size_t>> seen;  // label, pending then
};

void LogPoint(lockcheck::SchedulePoint point, const void* what, void* arg) {
  if (point != lockcheck::SchedulePoint::kNamed) return;
  auto* log = static_cast<PointLog*>(arg);
  log->seen.emplace_back(static_cast<const char*>(what), log->wq->pending_count());
}

TEST(Workqueue, SchedulePointsComeBeforeQueueingAndRunningWithTheLockFree) {
  workqueue_struct wq("points");
  Counted c;
  c.wq = &wq;
  INIT_WORK(&c.work, CountedFn);
  PointLog log{&wq, {}};
  lockcheck::SetScheduleHook(&LogPoint, &log);
  EXPECT_TRUE(queue_work_on(0, &wq, &c.work));
  EXPECT_TRUE(wq.RunOne());
  lockcheck::SetScheduleHook(nullptr, nullptr);
  ASSERT_EQ(log.seen.size(), 2u);
  EXPECT_EQ(log.seen[0].first, "queue_work_on");
  EXPECT_EQ(log.seen[0].second, 0u);  // before the item is queued
  EXPECT_EQ(log.seen[1].first, "work item about to run");
  EXPECT_EQ(log.seen[1].second, 0u);  // taken off the queue, not yet run
  EXPECT_EQ(c.runs.load(), 1);
}

}  // namespace
