// program/driver.cc: RunStress (see driver.h): builds the run, starts and
// joins its threads, collects the result and tears the QPs down.
#include "program/driver.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include "common/strings.h"
#include "program/failure.h"
#include "program/run_state.h"
#include "program/thread_loop.h"
#include "program/watchdog.h"

namespace flowcheck {
namespace program {
// One device per context: dd->verbs_dev.n_tidwait is a device-wide
// statistic that the kernel bumps under whichever context's exp_lock (a
// benign race, core/hfi1.h); on separate devices the contexts share no
// unlocked state and TSan stays meaningful.
void BuildModel(Run* run) {
  const StressConfig& config = run->config;
  for (int c = 0; c < config.contexts; ++c) {
    run->devices.push_back(
        hfi1_model_alloc_devdata(1, &run->wq, config.seed + static_cast<u64>(c)));
    run->contexts.push_back(std::make_unique<ContextState>(run->devices.back()->rcd[0].get()));
  }
  const int nparticipants = config.threads + (config.irq_thread ? 1 : 0);
  const int64_t ops_limit = EffectiveOpsPerThread(config);
  for (int i = 0; i < nparticipants; ++i) {
    auto p = std::make_unique<Participant>();
    p->index = i;
    p->irq = i == config.threads;
    p->name = p->irq ? "rcv-irq" : flowcheck::StrCat("stress-", i);
    p->strict = config.strict;
    p->rng = Rng(StreamSeed(config.seed, static_cast<uint64_t>(i)));
    p->ops_limit = p->irq ? 0 : ops_limit;
    run->participants.push_back(std::move(p));
  }
  for (int t = 0; t < config.threads; ++t) {
    for (int k = 0; k < config.qps_per_thread; ++k) {
      const int j = static_cast<int>(run->all_qps.size());
      ContextState* ctx = run->contexts[j % config.contexts].get();
      rvt_qp* qp = hfi1_model_create_qp(run->devices[j % config.contexts].get(),
                                        static_cast<u32>(j + 1));
      run->all_qps.push_back(qp);
      run->qp_contexts.push_back(ctx);
      ctx->qps.push_back(qp);
      run->participants[t]->slots.push_back(QpSlot{qp, ctx});
    }
  }
  run->barrier = std::make_unique<QuiescentBarrier>(nparticipants);
}

namespace {

StressResult Collect(const Run& run, double seconds) {
  StressResult r;
  r.config = run.config;
  r.seconds = seconds;
  r.ops = Sum(run, kOps);
  r.checks = Sum(run, kChecks);
  r.quiescent_points = run.quiescent_points;
  r.work_items = run.wq.executed();
  r.yields = run.yield->yields.load(std::memory_order_relaxed);
  for (int c = 0; c < kNumCounters; ++c) r.counters[kCounterNames[c]] = Sum(run, Counter(c));
  r.divergences = run.leader_divergences;
  for (const auto& p : run.participants) {
    for (const auto& d : p->divergences) r.divergences.emplace(d.first, d.second);
  }
  r.stopped_by = run.stopped_by;
  return r;
}

}  // namespace

StressResult RunStress(const StressConfig& input, StressProgress* live) {
  StressConfig config = input;
  const std::string invalid = Validate(config);
  if (!invalid.empty()) {
    std::fprintf(stderr, "stress: %s\n", invalid.c_str());
    std::abort();
  }
  if (config.seed == 0) config.seed = RandomSeed();
  std::printf("flowcheck stress: seed %llu; rerun: %s\n",
              static_cast<unsigned long long>(config.seed), RerunCommand(config).c_str());
  std::fflush(stdout);
  ArmFailureReporting(config);

  Run run;
  run.config = config;
  run.live = live;
  run.yield = std::make_unique<YieldPolicy>(config.seed, config.yield_probability);
  BuildModel(&run);

  Watchdog watchdog(&run.progress, config.watchdog_seconds,
                    [&run] { return DescribeParticipants(run); });
  InstallYieldHook(run.yield.get());
  run.wq.Start(config.workers);
  watchdog.Start();
  run.start = std::chrono::steady_clock::now();

  std::vector<std::thread> threads;
  for (auto& p : run.participants) {
    Participant* raw = p.get();
    threads.emplace_back([&run, raw] {
      if (raw->irq) {
        IrqThreadMain(&run, raw);
      } else {
        OpThreadMain(&run, raw);
      }
    });
  }
  // The caller's progress view, refreshed while the threads run.
  std::atomic<bool> joined{false};
  std::thread feeder;
  if (live != nullptr) {
    feeder = std::thread([&] {
      while (!joined.load(std::memory_order_relaxed)) {
        live->ops.store(Sum(run, kOps), std::memory_order_relaxed);
        live->checks.store(Sum(run, kChecks), std::memory_order_relaxed);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  joined.store(true, std::memory_order_relaxed);
  if (feeder.joinable()) feeder.join();
  const double seconds = Elapsed(run);
  watchdog.Stop();
  run.wq.Stop();
  RemoveYieldHook();

  StressResult r = Collect(run, seconds);
  if (live != nullptr) {
    live->ops.store(r.ops, std::memory_order_relaxed);
    live->checks.store(r.checks, std::memory_order_relaxed);
  }

  // QP destroy: every reference the flow layer took must have been returned.
  for (rvt_qp* qp : run.all_qps) {
    const int left = hfi1_model_teardown_qp(qp);
    if (left != 0) {
      Fail("invariant final", flowcheck::StrFormat("qp %u: %d reference(s) left after teardown "
                                                   "(0 expected)",
                                                   qp->qp_num, left));
    }
  }
  for (rvt_qp* qp : run.all_qps) hfi1_model_free_qp(qp);
  DisarmFailureReporting();
  return r;
}

}  // namespace program
}  // namespace flowcheck
