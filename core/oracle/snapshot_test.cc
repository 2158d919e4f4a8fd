// snapshot.h's contract: equal snapshots <=> CompareWithModel finds nothing.
// Checked on random lockstep runs and after corrupting, one at a time, every
// model field CompareWithModel compares (the snapshots must differ, and
// CompareWithModel must say so too). Lockstep::Compare additionally aborts
// whenever the snapshots differ and CompareWithModel does not, in every test
// and fuzz replay that steps a Lockstep.
#include "core/oracle/snapshot.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/list.h"
#include "core/oracle/compare.h"
#include "core/oracle/lockstep.h"
#include "gtest/gtest.h"

namespace {

using flowcheck::oracle::CompareWithModel;
using flowcheck::oracle::Lockstep;
using flowcheck::oracle::Op;
using flowcheck::oracle::OpKind;
using flowcheck::oracle::SameState;
using flowcheck::oracle::SnapshotModel;
using flowcheck::oracle::SnapshotOracle;
using flowcheck::oracle::StateSnapshot;

std::vector<rvt_qp*> Qps(const Lockstep& ls) {
  std::vector<rvt_qp*> q;
  for (int i = 0; i < ls.num_qps(); ++i) q.push_back(ls.qp(i));
  return q;
}

// Returns whether the snapshots are equal; expects that to be exactly when
// CompareWithModel finds no difference.
bool ExpectAgreement(Lockstep& ls, const std::string& context) {
  static StateSnapshot m, o;  // static: big
  const std::vector<rvt_qp*> qps = Qps(ls);
  unsigned long flags;
  spin_lock_irqsave(&ls.rcd()->exp_lock, flags);
  const bool fit =
      SnapshotModel(*ls.rcd(), qps, ls.wq(), &m) && SnapshotOracle(ls.oracle(), &o);
  const std::vector<std::string> diffs = CompareWithModel(ls.oracle(), *ls.rcd(), qps, ls.wq());
  spin_unlock_irqrestore(&ls.rcd()->exp_lock, flags);
  EXPECT_TRUE(fit) << context;
  const bool same = SameState(m, o);
  EXPECT_EQ(same, diffs.empty()) << context << ": snapshots " << (same ? "equal" : "differ")
                                 << ", CompareWithModel:\n"
                                 << ::testing::PrintToString(diffs);
  return same;
}

// Random legal ops (the oracle test's domain rules).
Op RandomOp(std::mt19937_64& rng, const Lockstep& ls) {
  const int qp = static_cast<int>(rng() % ls.num_qps());
  switch (rng() % 12) {
    case 0: case 1: return {OpKind::kSetupHwFlow, qp};
    case 2: return {OpKind::kClearHwFlow, qp};
    case 3: return {OpKind::kFlushWait, qp};
    case 4: return {OpKind::kRarrWait, qp};
    case 5: return {OpKind::kRarrGrant, qp};
    case 6: return {OpKind::kRarrRelease, qp};
    case 7: return {OpKind::kSetWantsFlow, qp, static_cast<int64_t>(rng() % 2)};
    case 8: return {OpKind::kReserveFlow, 0, static_cast<int64_t>(rng() % 40) - 4};
    case 9: {
      const unsigned long h = ls.oracle().harness_flows();
      if (h == 0) return {OpKind::kRunWork};
      int idx;
      do idx = static_cast<int>(rng() % 32); while (!((h >> idx) & 1));
      return {OpKind::kReleaseFlow, 0, idx};
    }
    default: return {OpKind::kRunWork};
  }
}

// One corruption of a compared model field (under the locks the model's own
// writers take; the model is at rest). Skipped when it would not change the
// state (e.g. unlinking a QP that is on no list).
using Corruption = std::function<void(Lockstep&, std::mt19937_64&)>;

void UnderExpLock(Lockstep& ls, const std::function<void(hfi1_ctxtdata*)>& fn) {
  unsigned long flags;
  spin_lock_irqsave(&ls.rcd()->exp_lock, flags);
  fn(ls.rcd());
  spin_unlock_irqrestore(&ls.rcd()->exp_lock, flags);
}

void UnderSLock(rvt_qp* qp, const std::function<void()>& fn) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  unsigned long flags;
  spin_lock_irqsave(&qp->s_lock, flags);
  fn();
  spin_unlock_irqrestore(&qp->s_lock, flags);
}

std::vector<std::pair<std::string, Corruption>> Corruptions() {
  auto qp = [](Lockstep& ls, std::mt19937_64& rng) {
    return ls.qp(static_cast<int>(rng() % ls.num_qps()));
  };
  return {
      {"flow_mask bit", [](Lockstep& ls, std::mt19937_64& rng) {
         const int bit = static_cast<int>(rng() % 64);
         UnderExpLock(ls, [bit](hfi1_ctxtdata* r) ABSL_NO_THREAD_SAFETY_ANALYSIS {
           r->flow_mask ^= 1UL << bit;
         });
       }},
      {"flow generation", [](Lockstep& ls, std::mt19937_64& rng) {
         const int f = static_cast<int>(rng() % 32);
         UnderExpLock(ls, [f](hfi1_ctxtdata* r) ABSL_NO_THREAD_SAFETY_ANALYSIS {
           r->flows[f].generation ^= 1;
         });
       }},
      {"flow register", [](Lockstep& ls, std::mt19937_64& rng) {
         const int f = static_cast<int>(rng() % 32);
         ls.rcd()->rcv_tid_flow_table[f].fetch_xor(1ull << (rng() % 64));
       }},
      {"flow_state.index", [qp](Lockstep& ls, std::mt19937_64& rng) {
         qp(ls, rng)->priv->flow_state.index ^= 1 + rng() % 63;
       }},
      {"flow_state.last_index", [qp](Lockstep& ls, std::mt19937_64& rng) {
         qp(ls, rng)->priv->flow_state.last_index ^= 1 + rng() % 63;
       }},
      {"flow_state.generation", [qp](Lockstep& ls, std::mt19937_64& rng) {
         qp(ls, rng)->priv->flow_state.generation += 1;
       }},
      {"flow_state.psn", [qp](Lockstep& ls, std::mt19937_64& rng) {
         qp(ls, rng)->priv->flow_state.psn += 1;
       }},
      {"HFI1_S_WAIT_TID_SPACE", [qp](Lockstep& ls, std::mt19937_64& rng) {
         rvt_qp* q = qp(ls, rng);
         UnderSLock(q, [q]() ABSL_NO_THREAD_SAFETY_ANALYSIS { q->s_flags ^= 0x10000000; });
       }},
      {"tid_enqueue", [qp](Lockstep& ls, std::mt19937_64& rng) { qp(ls, rng)->priv->tid_enqueue += 1; }},
      {"refcount", [qp](Lockstep& ls, std::mt19937_64& rng) { qp(ls, rng)->refcount.fetch_add(1); }},
      {"trigger_work queued", [qp](Lockstep& ls, std::mt19937_64& rng) {
         queue_work_on(0, &ls.wq(), &qp(ls, rng)->priv->tid_rdma.trigger_work);
       }},
      {"send work queued", [qp](Lockstep& ls, std::mt19937_64& rng) {
         queue_work_on(0, &ls.wq(), &qp(ls, rng)->priv->s_iowait.iowork);
       }},
      {"resync", [qp](Lockstep& ls, std::mt19937_64& rng) {
         rvt_qp* q = qp(ls, rng);
         UnderSLock(q, [q]() { q->priv->resync = !q->priv->resync; });
       }},
      {"request wants_flow", [qp](Lockstep& ls, std::mt19937_64& rng) {
         rvt_qp* q = qp(ls, rng);
         UnderSLock(q, [q]() { q->priv->model_req.wants_flow = !q->priv->model_req.wants_flow; });
       }},
      {"send engine runs", [qp](Lockstep& ls, std::mt19937_64& rng) {
         rvt_qp* q = qp(ls, rng);
         UnderSLock(q, [q]() { q->priv->model_req.send_engine_runs += 1; });
       }},
      {"flows granted", [qp](Lockstep& ls, std::mt19937_64& rng) {
         rvt_qp* q = qp(ls, rng);
         UnderSLock(q, [q]() { q->priv->model_req.flows_granted += 1; });
       }},
      {"queue counters", [](Lockstep& ls, std::mt19937_64& rng) {
         const int which = static_cast<int>(rng() % 4);
         UnderExpLock(ls, [which](hfi1_ctxtdata* r) ABSL_NO_THREAD_SAFETY_ANALYSIS {
           tid_queue& q = which < 2 ? r->flow_queue : r->rarr_queue;
           (which % 2 ? q.enqueue : q.dequeue) += 1;
         });
       }},
      {"queue links", [qp](Lockstep& ls, std::mt19937_64& rng) {
         rvt_qp* q = qp(ls, rng);
         const bool to_flow = rng() % 2;
         UnderExpLock(ls, [q, to_flow](hfi1_ctxtdata* r) ABSL_NO_THREAD_SAFETY_ANALYSIS {
           list_head* node = &q->priv->tid_wait;
           if (!list_empty(node)) {
             list_del_init(node);  // off its list, silently
           } else {
             list_add_tail(node, to_flow ? &r->flow_queue.queue_head : &r->rarr_queue.queue_head);
           }
         });
       }},
      {"n_tidwait", [](Lockstep& ls, std::mt19937_64&) { ls.rcd()->dd->verbs_dev.n_tidwait += 1; }},
  };
}

TEST(Snapshot, EqualOnEveryStateOfRandomRuns) {
  for (int seed = 1; seed <= 20; ++seed) {
    Lockstep ls(1 + seed % 8, seed);
    std::mt19937_64 rng(seed);
    for (int step = 0; step < 300; ++step) {
      ls.Step(RandomOp(rng, ls));
      ASSERT_TRUE(ExpectAgreement(ls, "seed " + std::to_string(seed)))
          << "step " << step << ": model and oracle should agree";
    }
  }
}

// AdoptSnapshot: an oracle in another state that takes a model's snapshot
// agrees with the model (CompareWithModel finds nothing) on every state of
// random runs.
TEST(Snapshot, AnOracleThatAdoptsTheModelsStateAgreesAndFollows) {
  for (int seed = 1; seed <= 10; ++seed) {
    Lockstep ls(1 + seed % 8, seed);
    std::mt19937_64 rng(seed);
    const std::vector<rvt_qp*> qps = Qps(ls);
    for (int step = 0; step < 200; ++step) {
      ls.Step(RandomOp(rng, ls));
      static StateSnapshot m;
      flowcheck::oracle::FlowOracle adopted = ls.oracle();
      adopted.Reset({});  // another state, so that the adoption has to set all of it
      unsigned long flags;
      spin_lock_irqsave(&ls.rcd()->exp_lock, flags);
      const bool took = SnapshotModel(*ls.rcd(), qps, ls.wq(), &m) &&
                        flowcheck::oracle::AdoptSnapshot(m, &adopted);
      const std::vector<std::string> diffs = CompareWithModel(adopted, *ls.rcd(), qps, ls.wq());
      spin_unlock_irqrestore(&ls.rcd()->exp_lock, flags);
      ASSERT_TRUE(took) << "seed " << seed << " step " << step;
      ASSERT_TRUE(diffs.empty()) << "seed " << seed << " step " << step << ": "
                                 << ::testing::PrintToString(diffs);
    }
  }
}

TEST(Snapshot, IgnoresUnusedSlotsOnly) {
  // The fills clear nothing: what an earlier, bigger fill left in the slots
  // past num_qps / length / num_work must not count, and a used slot must.
  Lockstep ls(2, 7);
  std::mt19937_64 rng(7);
  for (int step = 0; step < 40; ++step) ls.Step(RandomOp(rng, ls));
  static StateSnapshot m, o;
  const std::vector<rvt_qp*> qps = Qps(ls);
  unsigned long flags;
  spin_lock_irqsave(&ls.rcd()->exp_lock, flags);
  const bool fit = SnapshotModel(*ls.rcd(), qps, ls.wq(), &m);
  spin_unlock_irqrestore(&ls.rcd()->exp_lock, flags);
  ASSERT_TRUE(fit);
  ASSERT_TRUE(SnapshotOracle(ls.oracle(), &o));
  ASSERT_TRUE(SameState(m, o));
  o.qp[m.num_qps].refs ^= 5;
  o.queue[0].members[m.queue[0].length] ^= 5;
  o.work[m.num_work].kind ^= 5;
  EXPECT_TRUE(SameState(m, o)) << "a slot past the used ones was compared";
  o.qp[m.num_qps - 1].refs ^= 1;
  EXPECT_FALSE(SameState(m, o)) << "the last used QP slot was not compared";
  o.qp[m.num_qps - 1].refs ^= 1;
  o.queue[1].length += 1;
  EXPECT_FALSE(SameState(m, o)) << "a queue length was not compared";
}

TEST(Snapshot, DiffersExactlyWhenCompareWithModelDoesForEveryField) {
  // One Lockstep per QP count, Reset before each trial: Reset rebuilds every
  // field a corruption touches, so the objects end clean for teardown.
  std::unique_ptr<Lockstep> pool[7];
  const auto corruptions = Corruptions();
  for (size_t c = 0; c < corruptions.size(); ++c) {
    int differed = 0;
    for (int seed = 1; seed <= 25; ++seed) {
      const int n = 1 + seed % 6;
      if (pool[n] == nullptr) pool[n] = std::make_unique<Lockstep>(n, 1);
      Lockstep& ls = *pool[n];
      ls.Reset(seed * 31 + static_cast<int>(c));
      std::mt19937_64 rng(seed);
      const int steps = static_cast<int>(rng() % 60);
      for (int step = 0; step < steps; ++step) ls.Step(RandomOp(rng, ls));
      const std::string context = corruptions[c].first + ", seed " + std::to_string(seed);
      ASSERT_TRUE(ExpectAgreement(ls, context + " (before)"));
      corruptions[c].second(ls, rng);
      differed += ExpectAgreement(ls, context) ? 0 : 1;
    }
    // Not vacuous: the corruption changed a compared field in most trials
    // (queueing an item that is already pending changes nothing).
    EXPECT_GE(differed, 5) << corruptions[c].first << " rarely changed anything";
  }
  for (auto& ls : pool) {
    if (ls != nullptr) ls->Reset(1);
  }
}

}  // namespace
