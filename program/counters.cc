// program/counters.cc: see counters.h.
#include "program/counters.h"

namespace flowcheck {
namespace program {

const char* const kCounterNames[kNumCounters] = {
    "ops", "checks",
    "setup_ok", "setup_eagain", "granted_by_wakeup", "granted_by_retry", "give_up",
    "retry_eagain", "release", "use", "rarr_wait", "rarr_grant", "rarr_release", "rarr_flush",
    "resync_ack", "bare_reserved", "bare_eagain_full", "bare_released", "resync",
    "resync_accepted", "segment_set_up", "segment_queued", "segment_cleared",
};

}  // namespace program
}  // namespace flowcheck
