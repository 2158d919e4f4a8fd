// program/op_list.h: the op lists of a controlled execution (--sched): each
// participant's ops (program/op_table.h), drawn from (seed, execution) or
// read back from a schedule file's `param ops.<thread>=...`.
#ifndef FLOWCHECK_PROGRAM_OP_LIST_H_
#define FLOWCHECK_PROGRAM_OP_LIST_H_

#include <cstdint>
#include <vector>

#include "program/config.h"
#include "program/op_table.h"

namespace flowcheck {
namespace program {

// One op list per participant of a controlled execution: each op thread in
// order, then rcv-irq.
using OpLists = std::vector<std::vector<ListedOp>>;

// The op list of participant `index` (an op thread, or rcv-irq when `irq`)
// for execution `execution` of a run with `c`: sched_ops ops, each fitting
// the state the QP would be in if every earlier op of the list ran (a wait
// drawn as granted or not at random), so that most of them do run.
std::vector<ListedOp> GenerateOps(const StressConfig& c, uint64_t execution, int index, bool irq);

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_OP_LIST_H_
