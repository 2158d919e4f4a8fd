// program/program_space.h: internal to the engine. The programs dfs explores
// with --sched_program_ops=K (K > 0): every combination of one op list per
// participant (each op thread, then rcv-irq), each list at most K ops long,
// smallest total first (all programs of 0 ops, then of 1, ...).
//
// A list's ops come from the op table (op_table.h) with these arguments:
// QP ops on every slot of the thread (op threads only), segment with 4
// pagesets (a group left partly used) and with 12 (one filled, one begun);
// on every context C
// bare_reserve@C.F (F = 32 - --sched_free_flows, the first flow free at the
// start: kern_reserve_flow's preferred path) and bare_reserve@C.32 (its
// search for the lowest free flow); bare_release@0; resync@J for every
// QP of the run (rcv-irq only, as the receive interrupt is what handles a
// RESYNC; QP ops are op threads' only, since an interrupt owns no QP).
//
// The one reduction, and why it loses nothing: a list is left out when one
// of its ops fits no state its QP slot (or bare count) can be in at that
// point, whatever the schedule: such an op is skipped at run time without
// a lock, a decision point or a state change (RunListedOp), so the program
// behaves as the one without it, which the space holds (it is shorter).
// The states are the thread's own beliefs (QpSlot::state), which only its
// own ops move; an op whose outcome depends on the schedule (setup: owned
// or waiting) leads to every outcome. Likewise `retry` is left out where it
// would do exactly what `setup` does there (the slot cannot be idle: setup
// on a waiting QP is a retry).
#ifndef FLOWCHECK_PROGRAM_PROGRAM_SPACE_H_
#define FLOWCHECK_PROGRAM_PROGRAM_SPACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "program/config.h"
#include "program/op_list.h"

namespace flowcheck {
namespace program {

class ProgramSpace {
 public:
  // The space of `c` (c.sched_program_ops > 0); or, if it has more than
  // kMaxPrograms programs or a participant more than kMaxLists lists, an
  // empty space and *error saying so (else *error is left as it is).
  static constexpr uint64_t kMaxPrograms = uint64_t{1} << 40;
  static constexpr size_t kMaxLists = size_t{1} << 20;
  ProgramSpace(const StressConfig& c, std::string* error);

  uint64_t size() const { return size_; }

  // Program p (0 <= p < size()): one op list per participant.
  OpLists Program(uint64_t p) const;

  // Participant i's lists, shortest first.
  std::vector<std::vector<ListedOp>> Lists(int i) const;

  // The ops participant i's lists are made of, in op-table order.
  const std::vector<ListedOp>& alphabet(int i) const { return alphabets_[i]; }

  // The list participant i runs (op threads, then rcv-irq) behaves as, in
  // every schedule: `list` without the ops that fit no state, retry as setup
  // where it is one. For a list of the space's alphabet and length the
  // result is in the space (the reduction's claim; program_space_test
  // checks both halves).
  std::vector<ListedOp> Canonical(int i, const std::vector<ListedOp>& list) const;

  // One line for the run's header: what the space holds, e.g.
  // "every list of <= 2 ops per participant (stress-0, stress-1, rcv-irq):
  //  2 x 27 x 14 lists, 10206 programs, smallest first (the op table's
  //  41 x 41 x 15 lists: 27 x 27 x 14 can run every op)".
  std::string Describe() const;

 private:
  // lists_[i][n]: participant i's lists of exactly n ops, in table order.
  std::vector<std::vector<std::vector<std::vector<ListedOp>>>> lists_;
  std::vector<std::vector<ListedOp>> alphabets_;
  std::vector<uint64_t> unreduced_;  // per participant: lists before the reduction
  // ways_[i][t]: programs of participants i.. with t ops in all.
  std::vector<std::vector<uint64_t>> ways_;
  int max_ops_ = 0;
  uint64_t size_ = 0;
  std::vector<std::string> names_;
  StressConfig config_;
};

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_PROGRAM_SPACE_H_
