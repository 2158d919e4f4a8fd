// stress/driver.cc: RunStress and the leader actions (see driver.h).
#include "stress/driver.h"

#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/bitops.h"
#include "core/tid_rdma.h"
#include "lockcheck/lockdep.h"
#include "stress/failure.h"
#include "stress/run_state.h"
#include "stress/watchdog.h"

namespace flowcheck {
namespace stress {

const char* const kCounterNames[kNumCounters] = {
    "ops", "checks",
    "setup_ok", "setup_eagain", "granted_by_wakeup", "granted_by_retry", "give_up",
    "retry_eagain", "release", "use", "rarr_wait", "rarr_grant", "rarr_release", "rarr_flush",
    "resync_ack", "bare_reserved", "bare_eagain_full", "bare_released", "resync",
    "resync_accepted",
};

const char* QpStateName(QpState s) {
  switch (s) {
    case QpState::kIdle: return "idle";
    case QpState::kOwned: return "owns a flow";
    case QpState::kWaitingFlow: return "waits for a flow";
    case QpState::kOwnedRarr: return "owns a flow, waits for TIDs";
  }
  return "?";
}

void FailWith(const Finding& f, const std::string& who) {
  Fail("invariant " + f.id, absl::StrCat(f.detail, " [found by ", who, "]"));
}

void JudgeInto(std::map<std::string, std::string>* divergences,
               const std::vector<Finding>& findings, const char* where, const std::string& who) {
  for (const Finding& f : findings) {
    if (f.divergence) {
      divergences->emplace(f.id, f.detail);
    } else {
      FailWith(Finding{f.id, absl::StrCat(f.detail, " (checked after: ", where, ")")}, who);
    }
  }
}

namespace {

uint64_t Sum(const Run& run, Counter c) {
  uint64_t n = 0;
  for (const auto& p : run.participants) n += p->counters[c].load(std::memory_order_relaxed);
  return n;
}

// What each of the run's participants believes about its QPs and flows,
// compared with the model. Leader only (everyone parked, work queue idle).
void CrossCheck(Run* run, ContextState* ctx) ABSL_EXCLUSIVE_LOCKS_REQUIRED(ctx->rcd->exp_lock) {
  int bare_claims = 0;
  for (const auto& p : run->participants) {
    for (const QpSlot& s : p->slots) {
      if (s.ctx != ctx) continue;
      const u32 idx = s.qp->priv->flow_state.index;
      const char q = QueueOf(*ctx, s.qp);
      const bool owns = idx < RXE_NUM_TID_FLOWS;
      bool ok = false;
      switch (s.state) {
        case QpState::kIdle: ok = !owns && q == 0; break;
        case QpState::kOwned: ok = owns && q == 0; break;
        case QpState::kWaitingFlow: ok = (!owns && q == 'f') || (owns && q == 0); break;
        case QpState::kOwnedRarr: ok = owns && q == 'r'; break;
      }
      if (!ok) {
        FailWith(Finding{"ownership",
                         absl::StrFormat("%s believes qp %u %s, but the model says: flow index "
                                         "%u, queue %s",
                                         p->name, s.qp->qp_num, QpStateName(s.state), idx,
                                         q == 'f' ? "flow_queue" : q == 'r' ? "rarr_queue" : "none")},
                 "the quiescent-point leader");
      }
    }
    for (const auto& b : p->bare) {
      if (b.first != ctx) continue;
      ++bare_claims;
      if (!((ctx->bare_mask >> b.second) & 1) || ctx->bare_owner[b.second] != p->index) {
        FailWith(Finding{"ownership", absl::StrFormat("%s believes it holds flow %d of context "
                                                      "%u, the harness table disagrees",
                                                      p->name, b.second, ctx->rcd->ctxt)},
                 "the quiescent-point leader");
      }
    }
  }
  if (bare_claims != static_cast<int>(hweight_long(ctx->bare_mask))) {
    FailWith(Finding{"ownership", absl::StrFormat("the harness table holds flows 0x%x but the "
                                                  "threads claim %d",
                                                  ctx->bare_mask, bare_claims)},
             "the quiescent-point leader");
  }
}

double Elapsed(const Run& run) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - run.start).count();
}

std::string DescribeParticipants(const Run* run) {
  std::string s;
  for (const auto& p : run->participants) {
    absl::StrAppendFormat(&s, "  %s: %s (%u ops)\n", p->name,
                          p->doing.load(std::memory_order_relaxed),
                          p->counters[kOps].load(std::memory_order_relaxed));
  }
  absl::StrAppendFormat(&s, "  work queue: %u item(s) pending\n", run->wq.pending_count());
  return s;
}

uint64_t RandomSeed() {
  std::random_device rd;
  uint64_t s = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return s == 0 ? 1 : s;
}

}  // namespace

bool QuiescentPoint(Run* run) {
  run->wq.WaitIdle();
  for (auto& ctx : run->contexts) {
    unsigned long flags;
    spin_lock_irqsave(&ctx->rcd->exp_lock, flags);
    JudgeInto(&run->leader_divergences, CheckAtRest(*ctx), "a quiescent point",
              "the quiescent-point leader");
    CrossCheck(run, ctx.get());
    spin_unlock_irqrestore(&ctx->rcd->exp_lock, flags);
  }
  ++run->quiescent_points;
  if (run->live != nullptr) run->live->quiescent.fetch_add(1, std::memory_order_relaxed);
  run->Beat();
  if (run->config.seconds > 0 && Elapsed(*run) >= run->config.seconds) return false;
  for (const auto& p : run->participants) {
    if (!p->irq && p->ops_limit > 0 && p->ops_done >= p->ops_limit) return false;
  }
  return true;
}

bool DrainRound(Run* run) {
  run->wq.WaitIdle();
  bool waiters = false;
  for (auto& ctx : run->contexts) {
    unsigned long flags;
    spin_lock_irqsave(&ctx->rcd->exp_lock, flags);
    JudgeInto(&run->leader_divergences, CheckNoLostWakeup(*ctx), "a drain round",
              "the drain leader (every flow released, every thread parked, work queue idle)");
    if (!list_empty(&ctx->rcd->flow_queue.queue_head)) waiters = true;
    spin_unlock_irqrestore(&ctx->rcd->exp_lock, flags);
  }
  // A waiter granted after its thread last polled it is off the queue but
  // still to be seen and released: one more round.
  for (const auto& p : run->participants) {
    for (const QpSlot& s : p->slots) {
      if (s.state == QpState::kWaitingFlow) waiters = true;
    }
  }
  run->Beat();
  if (waiters && ++run->drain_rounds > 10000) {
    Fail("invariant no-lost-wakeup", "waiters remain on flow_queue after 10000 drain rounds");
  }
  return waiters;
}

bool FinalPoint(Run* run) {
  run->wq.WaitIdle();
  for (auto& ctx : run->contexts) {
    unsigned long flags;
    spin_lock_irqsave(&ctx->rcd->exp_lock, flags);
    JudgeInto(&run->leader_divergences, CheckFinal(*ctx), "the end of the run",
              "the final check");
    spin_unlock_irqrestore(&ctx->rcd->exp_lock, flags);
  }
  // Every wait that began (-EAGAIN) ended: granted (by a wakeup or a retry)
  // or given up. A wait still open here was never woken.
  const uint64_t began = Sum(*run, kSetupEagain);
  const uint64_t ended = Sum(*run, kGrantedByWakeup) + Sum(*run, kGrantedByRetry) + Sum(*run, kGiveUp);
  if (began != ended) {
    Fail("invariant no-lost-wakeup",
         absl::StrFormat("%u wait(s) began (setup returned -EAGAIN) but %u ended (granted or "
                         "given up)",
                         began, ended));
  }
  for (const auto& p : run->participants) {
    for (const QpSlot& s : p->slots) {
      if (s.state != QpState::kIdle) {
        Fail("invariant final", absl::StrFormat("%s ends with qp %u in state '%s'", p->name,
                                                 s.qp->qp_num, QpStateName(s.state)));
      }
    }
  }
  run->Beat();
  return true;
}

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

  // One device per context: dd->verbs_dev.n_tidwait is a device-wide
  // statistic that the kernel bumps under whichever context's exp_lock (a
  // benign race, core/hfi1.h); on separate devices the contexts share no
  // unlocked state and TSan stays meaningful.
  for (int c = 0; c < config.contexts; ++c) {
    run.devices.push_back(hfi1_model_alloc_devdata(1, &run.wq, config.seed + static_cast<u64>(c)));
    run.contexts.push_back(std::make_unique<ContextState>(run.devices.back()->rcd[0].get()));
  }
  const int nparticipants = config.threads + (config.irq_thread ? 1 : 0);
  const int64_t ops_limit = EffectiveOpsPerThread(config);
  for (int i = 0; i < nparticipants; ++i) {
    auto p = std::make_unique<Participant>();
    p->index = i;
    p->irq = i == config.threads;
    p->name = p->irq ? "rcv-irq" : absl::StrCat("stress-", i);
    p->rng = Rng(StreamSeed(config.seed, static_cast<uint64_t>(i)));
    p->ops_limit = p->irq ? 0 : ops_limit;
    run.participants.push_back(std::move(p));
  }
  for (int t = 0; t < config.threads; ++t) {
    for (int k = 0; k < config.qps_per_thread; ++k) {
      const int j = static_cast<int>(run.all_qps.size());
      ContextState* ctx = run.contexts[j % config.contexts].get();
      rvt_qp* qp = hfi1_model_create_qp(run.devices[j % config.contexts].get(),
                                        static_cast<u32>(j + 1));
      run.all_qps.push_back(qp);
      run.qp_contexts.push_back(ctx);
      ctx->qps.push_back(qp);
      run.participants[t]->slots.push_back(QpSlot{qp, ctx});
    }
  }
  run.barrier = std::make_unique<QuiescentBarrier>(nparticipants);

  Watchdog watchdog(&run.progress, config.watchdog_seconds,
                    [&run] { return DescribeParticipants(&run); });
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

  StressResult r;
  r.config = config;
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
  if (live != nullptr) {
    live->ops.store(r.ops, std::memory_order_relaxed);
    live->checks.store(r.checks, std::memory_order_relaxed);
  }

  // QP destroy: every reference the flow layer took must have been returned.
  for (rvt_qp* qp : run.all_qps) {
    const int left = hfi1_model_teardown_qp(qp);
    if (left != 0) {
      Fail("invariant final", absl::StrFormat("qp %u: %d reference(s) left after teardown "
                                              "(0 expected)",
                                              qp->qp_num, left));
    }
  }
  for (rvt_qp* qp : run.all_qps) hfi1_model_free_qp(qp);
  DisarmFailureReporting();
  return r;
}

std::string ResultJson(const StressResult& r) {
  std::string s = "{\n  \"result\": \"pass\",\n";
  absl::StrAppendFormat(&s, "  \"seed\": %u,\n  \"tsan\": %s,\n", r.config.seed,
                        BuiltWithTsan() ? "true" : "false");
  absl::StrAppendFormat(&s, "  \"rerun\": \"%s\",\n", RerunCommand(r.config));
  absl::StrAppendFormat(&s,
                        "  \"threads\": %d,\n  \"contexts\": %d,\n  \"qps_per_thread\": %d,\n"
                        "  \"yield_probability\": %g,\n",
                        r.config.threads, r.config.contexts, r.config.qps_per_thread,
                        r.config.yield_probability);
  absl::StrAppendFormat(&s,
                        "  \"seconds\": %.3f,\n  \"ops\": %u,\n  \"ops_per_second\": %.1f,\n"
                        "  \"checks_passed\": {\"per_op\": %u, \"quiescent_points\": %u, "
                        "\"final\": 1},\n  \"work_items\": %u,\n  \"yields\": %u,\n",
                        r.seconds, r.ops, r.ops_per_second(), r.checks, r.quiescent_points,
                        r.work_items, r.yields);
  s += "  \"counters\": {";
  bool first = true;
  for (const auto& c : r.counters) {
    absl::StrAppendFormat(&s, "%s\"%s\": %u", first ? "" : ", ", c.first, c.second);
    first = false;
  }
  s += "},\n  \"upstream_divergences\": [";
  first = true;
  for (const auto& d : r.divergences) {
    absl::StrAppendFormat(&s, "%s\"%s\"", first ? "" : ", ", d.first);
    first = false;
  }
  s += "]\n}\n";
  return s;
}

}  // namespace stress
}  // namespace flowcheck
