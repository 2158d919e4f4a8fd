// program/thread_loop.h: internal to the engine. The main function of each
// kind of stress thread; each returns after the final drain and checks.
#ifndef FLOWCHECK_PROGRAM_THREAD_LOOP_H_
#define FLOWCHECK_PROGRAM_THREAD_LOOP_H_

#include "program/run_state.h"

namespace flowcheck {
namespace program {

// An op thread ("stress-<i>"): ops on its QPs and bare flows, a quiescent
// point every --quiescent_every ops, until the leader ends the main phase.
void OpThreadMain(Run* run, Participant* p);

// The receive interrupt ("rcv-irq"): bare ops and RESYNCs in hardirq context,
// parking whenever the op threads gather at a quiescent point.
void IrqThreadMain(Run* run, Participant* p);

}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_THREAD_LOOP_H_
