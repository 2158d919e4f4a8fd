// fuzz/executor/legalise.cc: the reserve and flow ops as legal callers' calls
// (see legalise.h).
#include "fuzz/executor/legalise.h"

#include "common/strings.h"
#include "core/callers.h"
#include "core/oracle/flow_oracle.h"

namespace flowcheck {
namespace fuzz {
namespace {

using oracle::FlowOracle;
using oracle::OpKind;

constexpr int kMaxGrantsInFlight = 7;  // a request's flow ring: CIRC_SPACE of 8 slots
constexpr int kMaxRunAll = 64;         // run_all_work bound (a wakeup chain is shorter)
constexpr int kMaxFill = 33;           // 32 flows + the -EAGAIN
constexpr const char* kFlowFirst =
    "the QP owns no flow yet; its caller sets up the flow before RcvArray entries";

}  // namespace

void Legaliser::Run(Format format, const FuzzOp& op) {
  if (format == Format::kReserve) {
    RunReserveOp(op);
  } else {
    RunFlowOp(op);
  }
}

int Legaliser::HarnessFlow(int64_t k) const {
  const unsigned long h = run_.oracle().harness_flows();
  const int n = __builtin_popcountl(h);
  if (n == 0) return -1;
  int want = static_cast<int>(k % n);
  for (int f = 0; f < oracle::kNumFlows; ++f) {
    if (((h >> f) & 1) && want-- == 0) return f;
  }
  return -1;
}

void Legaliser::Repeat(const oracle::Op& op, int max_calls, bool (*last)(int64_t ret)) {
  run_.BeginBatch();
  for (int i = 0; i < max_calls && run_.ok(); ++i) {
    if (last(run_.Call(op))) break;
  }
  run_.EndBatch();
}

void Legaliser::ReleaseOwned(int64_t k) {
  const int f = HarnessFlow(k);
  if (f < 0)
    run_.NoCall([] { return "the harness owns no flow"; });
  else
    run_.Call({OpKind::kReleaseFlow, 0, f});
}

void Legaliser::ReleaseIndex(int64_t idx) {
  const FlowOracle& o = run_.oracle();
  if (idx >= 0 && idx < oracle::kNumFlows &&
      o.owner(static_cast<int>(idx)) == FlowOracle::kHarness) {
    run_.Call({OpKind::kReleaseFlow, 0, idx});
  } else if (idx < 0 || idx >= oracle::kNumFlows) {
    run_.NoCall([idx] {
      return flowcheck::StrFormat(
          "%" PRId64 " is not a flow index; releasing it is not the harness's to do", idx);
    });
  } else if (o.owner(static_cast<int>(idx)) == FlowOracle::kFree) {
    run_.NoCall([idx] {
      return flowcheck::StrFormat("flow %" PRId64 " is free; releasing it would be a double free",
                                  idx);
    });
  } else {
    run_.NoCall([idx, owner = o.owner(static_cast<int>(idx))] {
      return flowcheck::StrFormat("flow %" PRId64 " is owned by qp#%d, not by the harness", idx,
                                  owner);
    });
  }
}

void Legaliser::RunReserveOp(const FuzzOp& op) {
  switch (static_cast<ReserveOp>(op.code)) {
    case ReserveOp::kReserve:
      run_.Call({OpKind::kReserveFlow, 0, op.arg});
      break;
    case ReserveOp::kReleaseOwned:
      ReleaseOwned(op.arg);
      break;
    case ReserveOp::kReleaseIndex:
      ReleaseIndex(op.arg);
      break;
    case ReserveOp::kQpSetup:
      run_.Call({OpKind::kSetupHwFlow, op.qp});
      break;
    case ReserveOp::kQpClear:
      run_.Call({OpKind::kClearHwFlow, op.qp});
      break;
    case ReserveOp::kFill:
      Repeat({OpKind::kReserveFlow, 0, -1}, kMaxFill, [](int64_t ret) { return ret < 0; });
      break;
    case ReserveOp::kReleaseAll:
      run_.BeginBatch();
      for (int f = HarnessFlow(0); f >= 0 && run_.ok(); f = HarnessFlow(0)) {
        run_.Call({OpKind::kReleaseFlow, 0, f});
      }
      run_.EndBatch();
      if (run_.steps_in_op() == 0) run_.NoCall([] { return "the harness owns no flow"; });
      break;
    case ReserveOp::kRunWork:
      run_.Call({OpKind::kRunWork});
      break;
  }
}

// The RESYNC PSN: the peer sends resync_psn_for_generation(gen) (sequence
// 0x7FF of the generation before, 31 bits as on the wire), gen chosen
// relative to the QP's state so that the acceptance window is hit often.
uint32_t ResyncPsn(uint32_t g, uint32_t flow_generation, uint8_t sel, int64_t b) {
  const uint32_t base = g == oracle::kReservedGeneration ? flow_generation : g;
  uint32_t gen = 0;
  switch (sel % 8) {
    case 0:
      gen = g == oracle::kReservedGeneration ? base : FlowOracle::NextGeneration(g);
      break;
    case 1:
      gen = base;
      break;  // a duplicate
    case 2:
      gen = FlowOracle::NextGeneration(FlowOracle::NextGeneration(base));
      break;
    case 3:
      gen = oracle::kReservedGeneration;
      break;
    case 4:
      gen = 0xFFFFE;
      break;
    case 5:
      gen = 0;
      break;
    case 6:
      gen = static_cast<uint32_t>(b);
      break;
    default:  // a PSN inside a generation, not at its end
      return (static_cast<uint32_t>(b * 0x1111) & 0xFFFFF) << 11 | static_cast<uint32_t>(b & 0x7F);
  }
  return resync_psn_for_generation(gen);
}

uint32_t Legaliser::ResyncPsn(int qp, uint8_t sel, int64_t b) const {
  const FlowOracle& o = run_.oracle();
  return fuzz::ResyncPsn(o.qp(qp).generation,
                         o.generation(static_cast<int>(b % oracle::kNumFlows)), sel, b);
}

void Legaliser::RunFlowOp(const FuzzOp& op) {
  const int q = op.qp;
  const FlowOracle& o = run_.oracle();
  const bool owns_flow = o.qp(q).flow != oracle::kNoFlow;
  switch (static_cast<FlowOp>(op.code)) {
    case FlowOp::kSetup:
      run_.Call({OpKind::kSetupHwFlow, q});
      break;
    case FlowOp::kClear:
      run_.Call({OpKind::kClearHwFlow, q});
      break;
    case FlowOp::kFlush:
      run_.Call({OpKind::kFlushWait, q});
      break;
    case FlowOp::kRarrWait:
      // hfi1_kern_exp_rcv_setup runs only once the QP has its flow.
      if (owns_flow)
        run_.Call({OpKind::kRarrWait, q});
      else
        run_.Call({OpKind::kSetupHwFlow, q}, kFlowFirst);
      break;
    case FlowOp::kRarrGrant: {
      const oracle::QueueState& rq = o.rarr_queue();
      const bool may_allocate = rq.members.empty() || (rq.members.front() == q && o.qp(q).waiting);
      if (!owns_flow) {
        run_.Call({OpKind::kSetupHwFlow, q}, kFlowFirst);
      } else if (grants_[q] >= kMaxGrantsInFlight) {
        run_.NoCall(
            [] { return "the flow ring is full: hfi1_kern_exp_rcv_setup returns -EINVAL"; });
      } else if (!may_allocate) {
        run_.Call({OpKind::kRarrWait, q},
                  "another QP waits ahead on rarr_queue, so "
                  "hfi1_kern_exp_rcv_setup queues this one");
      } else {
        run_.Call({OpKind::kRarrGrant, q});
        ++grants_[q];
      }
      break;
    }
    case FlowOp::kRarrRelease:
      if (grants_[q] == 0) {
        run_.NoCall([] { return "nothing programmed: hfi1_kern_exp_rcv_clear returns -EINVAL"; });
      } else {
        run_.Call({OpKind::kRarrRelease, q});
        --grants_[q];
      }
      break;
    case FlowOp::kSetWantsFlow:
      run_.Call({OpKind::kSetWantsFlow, q, op.arg});
      break;
    case FlowOp::kResync:
      run_.Call({OpKind::kResync, q, ResyncPsn(q, op.sel, op.arg)});
      break;
    case FlowOp::kClearResync:
      run_.Call({OpKind::kClearResync, q});
      break;
    case FlowOp::kRunWork:
      run_.Call({OpKind::kRunWork});
      break;
    case FlowOp::kRunAllWork:
      Repeat({OpKind::kRunWork}, kMaxRunAll, [](int64_t ran) { return ran == 0; });
      break;
    case FlowOp::kReserve:
      run_.Call({OpKind::kReserveFlow, 0, op.arg});
      break;
    case FlowOp::kReleaseOwned:
      ReleaseOwned(op.arg);
      break;
  }
}

}  // namespace fuzz
}  // namespace flowcheck
