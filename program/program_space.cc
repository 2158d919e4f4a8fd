// program/program_space.cc: see program_space.h.
#include "program/program_space.h"

#include <algorithm>
#include <array>

#include "common/strings.h"
#include "core/tid_rdma.h"

namespace flowcheck {
namespace program {
namespace {

// The states in which the QP op `kind` runs, and where it leads from the
// state `from` (every outcome the schedule may give it): its row.
unsigned After(int kind, unsigned from) {
  const unsigned after = kListedOpRows[kind].after;
  return (after & ~kUnchanged) | ((after & kUnchanged) ? from : 0);
}

// What a participant's list may have made of its state so far. A fixed
// array (--qps_per_thread is at most kMaxQpsPerThread): Extend copies one per
// step, up to 2^20 steps before it refuses a space, and a vector's allocation
// each time was most of that.
struct Belief {
  std::array<unsigned, kMaxQpsPerThread> slots{};  // per QP slot
  int bare_max = 0;                                // bare flows it may hold (a reserve may fail)
};

// What an op does to a list: runs in some state the list may be in, runs in
// none (skipped whatever the schedule), or is another op there (retry where
// the slot cannot be idle: RunSetup runs setup on a waiting QP as a retry).
enum class Fit { kRuns, kNever, kIsSetup };

// Applies `op` to every state `b` allows (unless it fits none of them).
Fit Apply(const ListedOp& op, Belief* b) {
  if (IsQpOp(op.kind)) {
    unsigned& s = b->slots[op.a];
    const unsigned fits = s & kListedOpRows[op.kind].fits;
    if (fits == 0) return Fit::kNever;
    if (op.kind == kOpRetry && (s & kIdle) == 0) return Fit::kIsSetup;
    unsigned next = s & ~fits;  // where it does not fit it is skipped
    for (unsigned bit = kIdle; bit <= kRarr; bit <<= 1) {
      if (fits & bit) next |= After(op.kind, bit);
    }
    s = next;
    return Fit::kRuns;
  }
  const OpArgs args = kListedOpRows[op.kind].args;
  if (args == kContextFlow) {  // a bare reservation (it may fail)
    b->bare_max++;
  } else if (args == kBareIndex) {  // skipped while the thread holds none
    if (b->bare_max == 0) return Fit::kNever;
    b->bare_max--;
  }
  return Fit::kRuns;  // a RESYNC always runs
}

// Every op an op thread (or rcv-irq, `irq`) may run, in op-table order,
// with the arguments its row's `args` explore.
std::vector<ListedOp> Alphabet(const StressConfig& c, bool irq) {
  std::vector<ListedOp> ops;
  for (int kind = 0; kind < kNumListedOps; ++kind) {
    const auto k = static_cast<ListedOpKind>(kind);
    const ListedOpRow& row = kListedOpRows[kind];
    switch (row.args) {
      case kSlot:  // QP ops are op threads' only: an interrupt owns no QP
        for (int slot = 0; !irq && slot < c.qps_per_thread; ++slot) ops.push_back({k, slot, 0});
        break;
      case kSlotPagesets:
        for (int slot = 0; !irq && slot < c.qps_per_thread; ++slot) {
          if (row.layouts & k4) ops.push_back({k, slot, 4});
          if (row.layouts & k12) ops.push_back({k, slot, 12});
        }
        break;
      case kContextFlow:
        // Preferring the first flow free at the start (kern_reserve_flow's
        // preferred path), then the lowest free (its search).
        for (int ctx = 0; ctx < c.contexts; ++ctx) {
          ops.push_back({k, ctx, RXE_NUM_TID_FLOWS - c.sched_free_flows});
          ops.push_back({k, ctx, RXE_NUM_TID_FLOWS});
        }
        break;
      case kBareIndex:
        ops.push_back({k, 0, 0});
        break;
      case kQpIndex:  // rcv-irq's only: the receive interrupt handles a RESYNC
        for (int j = 0; irq && j < c.threads * c.qps_per_thread; ++j) ops.push_back({k, j, 0});
        break;
    }
  }
  return ops;
}

// Appends every list extending `prefix` (state `b`) by up to `left` ops to
// out[length], in table order (out null: only counts them); false once
// *count exceeds kMaxLists.
bool Extend(const std::vector<ListedOp>& alphabet, const Belief& b, int left,
            std::vector<ListedOp>* prefix, std::vector<std::vector<std::vector<ListedOp>>>* out,
            size_t* count) {
  if (++*count > ProgramSpace::kMaxLists) return false;
  if (out != nullptr) (*out)[prefix->size()].push_back(*prefix);
  if (left == 0) return true;
  for (const ListedOp& op : alphabet) {
    Belief next = b;
    if (Apply(op, &next) != Fit::kRuns) continue;
    prefix->push_back(op);
    if (!Extend(alphabet, next, left - 1, prefix, out, count)) return false;
    prefix->pop_back();
  }
  return true;
}

// Participant i's state before its first op.
Belief Initial(const StressConfig& c, int i) {
  const bool irq = i == c.threads;
  Belief b;
  for (int slot = 0; !irq && slot < c.qps_per_thread; ++slot) b.slots[slot] = kIdle;
  // The bare flows the setup gives it (controlled.cc: all but
  // sched_free_flows flows of each context, spread over the op threads).
  for (int k = 0; !irq && k < RXE_NUM_TID_FLOWS - c.sched_free_flows; ++k) {
    if (k % c.threads == i) b.bare_max += c.contexts;
  }
  return b;
}

uint64_t SaturatingMulAdd(uint64_t acc, uint64_t a, uint64_t b) {
  constexpr uint64_t kCap = ProgramSpace::kMaxPrograms + 1;
  if (a != 0 && b > kCap / a) return kCap;
  return std::min(kCap, acc + a * b);
}

}  // namespace

ProgramSpace::ProgramSpace(const StressConfig& c, std::string* error) : config_(c) {
  max_ops_ = c.sched_program_ops;
  if (c.qps_per_thread < 1 || c.qps_per_thread > kMaxQpsPerThread) {
    *error = flowcheck::StrCat("--qps_per_thread must be in 1..", kMaxQpsPerThread);
    return;
  }
  const int n = c.threads + (c.irq_thread ? 1 : 0);
  for (int i = 0; i < n; ++i) {
    const bool irq = i == c.threads;
    names_.push_back(irq ? "rcv-irq" : flowcheck::StrCat("stress-", i));
    const Belief b = Initial(c, i);
    alphabets_.push_back(Alphabet(c, irq));
    const std::vector<ListedOp>& alphabet = alphabets_.back();
    lists_.emplace_back(max_ops_ + 1);
    std::vector<ListedOp> prefix;
    size_t count = 0;
    // Counted first, so that a space too large is refused before 2^20 lists
    // are stored.
    const bool fits = Extend(alphabet, b, max_ops_, &prefix, nullptr, &count);
    count = 0;
    if (!fits || !Extend(alphabet, b, max_ops_, &prefix, &lists_.back(), &count)) {
      *error = flowcheck::StrCat("--sched_program_ops=", max_ops_, " gives ", names_.back(),
                                 " more than 2^20 op lists: lower it");
      lists_.clear();
      return;
    }
    uint64_t all = 0, power = 1;
    for (int len = 0; len <= max_ops_; ++len) {
      all = SaturatingMulAdd(all, power, 1);
      power = SaturatingMulAdd(0, power, alphabet.size());
    }
    unreduced_.push_back(all);
  }
  ways_.assign(n + 1, std::vector<uint64_t>(n * max_ops_ + 1, 0));
  ways_[n][0] = 1;
  for (int i = n - 1; i >= 0; --i) {
    for (int t = 0; t <= n * max_ops_; ++t) {
      for (int len = 0; len <= std::min(t, max_ops_); ++len) {
        ways_[i][t] = SaturatingMulAdd(ways_[i][t], lists_[i][len].size(), ways_[i + 1][t - len]);
      }
    }
  }
  for (uint64_t w : ways_[0]) size_ = SaturatingMulAdd(size_, w, 1);
  if (size_ > kMaxPrograms) {
    *error =
        flowcheck::StrCat("--sched_program_ops=", max_ops_, " with ", n,
                          " participants gives more than 2^40 programs: lower it or --threads");
    size_ = 0;
  }
}

OpLists ProgramSpace::Program(uint64_t p) const {
  const int n = static_cast<int>(lists_.size());
  int total = 0;
  while (p >= ways_[0][total]) p -= ways_[0][total++];
  OpLists program;
  for (int i = 0; i < n; ++i) {
    for (int len = 0; len <= std::min(total, max_ops_); ++len) {
      const uint64_t rest = ways_[i + 1][total - len];
      const uint64_t here = lists_[i][len].size() * rest;
      if (p >= here) {
        p -= here;
        continue;
      }
      program.push_back(lists_[i][len][p / rest]);
      p %= rest;
      total -= len;
      break;
    }
  }
  return program;
}

std::vector<std::vector<ListedOp>> ProgramSpace::Lists(int i) const {
  std::vector<std::vector<ListedOp>> all;
  for (const auto& by_length : lists_[i]) all.insert(all.end(), by_length.begin(), by_length.end());
  return all;
}

std::vector<ListedOp> ProgramSpace::Canonical(int i, const std::vector<ListedOp>& list) const {
  Belief b = Initial(config_, i);
  std::vector<ListedOp> out;
  for (ListedOp op : list) {
    const Fit fit = Apply(op, &b);
    if (fit == Fit::kNever) continue;
    if (fit == Fit::kIsSetup) {
      op.kind = kOpSetup;
      Apply(op, &b);
    }
    out.push_back(op);
  }
  return out;
}

std::string ProgramSpace::Describe() const {
  std::vector<std::string> kept, all;
  for (size_t i = 0; i < lists_.size(); ++i) {
    uint64_t k = 0;
    for (const auto& by_length : lists_[i]) k += by_length.size();
    kept.push_back(flowcheck::StrCat(names_[i], " ", k));
    all.push_back(flowcheck::StrCat(unreduced_[i]));
  }
  return flowcheck::StrCat(
      "every list of <= ", max_ops_, " ops per participant from the op table (",
      flowcheck::StrJoin(kept, ", "), " lists; ", flowcheck::StrJoin(all, ", "),
      " before the reduction): ", size_, " programs, smallest first");
}

}  // namespace program
}  // namespace flowcheck
