// program/leader.h: internal to the engine. What the last thread to arrive
// at a barrier does while the others stay parked (program/barrier.h): the
// checks that need the model at rest.
#ifndef FLOWCHECK_PROGRAM_LEADER_H_
#define FLOWCHECK_PROGRAM_LEADER_H_

#include "program/run_state.h"

namespace flowcheck {
namespace program {

// A quiescent point of the main phase: drains the work queue, then under
// each context's exp_lock core's full invariants (CheckAtRest) and the
// threads' beliefs (CrossCheck). Returns whether to keep going: false once
// --seconds have passed, an op thread reached its op limit, or a stop was
// requested (then run->stopped_by is set).
bool QuiescentPoint(Run* run);

// One round of the final drain: work queue drained, no lost wakeup on any
// context. Returns whether waiters remain (another round is needed).
bool DrainRound(Run* run);

// After the drain: CheckFinal on every context, every wait that began has
// ended, every QP idle. Returns true.
bool FinalPoint(Run* run);

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_LEADER_H_
