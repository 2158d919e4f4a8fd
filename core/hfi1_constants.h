// core/hfi1_constants.h: the hfi1 constants the flow layer uses, with the
// kernel's names and values (docs/kernel.md, "Constants"; chip.h, common.h, chip_registers.h,
// tid_rdma.h, verbs.h). Plain constexpr values: no behaviour lives here.
#ifndef FLOWCHECK_CORE_HFI1_CONSTANTS_H_
#define FLOWCHECK_CORE_HFI1_CONSTANTS_H_

#include <cerrno>
#include <cstdint>

// The kernel's fixed-width integer names (linux/types.h).
using u8 = uint8_t;
using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;

// chip.h: hardware TID flows per receive context. Also the "no flow" value of
// tid_flow_state.index and the "don't care" value of kern_reserve_flow's last.
inline constexpr int RXE_NUM_TID_FLOWS = 32;

// common.h: the low 11 PSN bits carry the flow sequence, the next 20 the
// generation.
inline constexpr u32 HFI1_KDETH_BTH_SEQ_SHIFT = 11;
inline constexpr u32 HFI1_KDETH_BTH_SEQ_MASK = 0x7FF;
inline constexpr u32 MAX_TID_FLOW_PSN = 1u << HFI1_KDETH_BTH_SEQ_SHIFT;  // 2048

// tid_rdma.h / hfi.h: 20-bit flow generations; the all-ones value is reserved
// ("unused flow" for kernel contexts, "no generation" in tid_flow_state).
inline constexpr u32 GENERATION_MASK = 0xFFFFF;
inline constexpr u32 KERN_GENERATION_RESERVED = GENERATION_MASK;

// verbs.h: 31-bit PSNs.
inline constexpr u32 PSN_MASK = 0x7FFFFFFF;
inline u32 mask_psn(u32 a) { return a & PSN_MASK; }

// chip_registers.h: RcvTIDFlowTable, one 64-bit register per flow at
// RCV_TID_FLOW_TABLE + 8 * flow_idx in the context's user CSR window.
// chip_registers.h has RXE + 0x300800; the block base does not matter here,
// the model only decodes the flow index from the offset.
inline constexpr u32 RCV_TID_FLOW_TABLE = 0x300800;
inline constexpr u64 RCV_TID_FLOW_TABLE_CTRL_FLOW_VALID_SMASK = 1ull << 32;
inline constexpr u64 RCV_TID_FLOW_TABLE_CTRL_HDR_SUPP_EN_SMASK = 1ull << 33;
inline constexpr u64 RCV_TID_FLOW_TABLE_CTRL_KEEP_AFTER_SEQ_ERR_SMASK = 1ull << 34;
inline constexpr u64 RCV_TID_FLOW_TABLE_CTRL_KEEP_ON_GEN_ERR_SMASK = 1ull << 35;
inline constexpr u64 RCV_TID_FLOW_TABLE_STATUS_SEQ_MISMATCH_SMASK = 1ull << 37;
inline constexpr u64 RCV_TID_FLOW_TABLE_STATUS_GEN_MISMATCH_SMASK = 1ull << 38;

// verbs.h: qp->s_flags bit "waiting on a TID queue (flow or RcvArray)".
inline constexpr u32 HFI1_S_WAIT_TID_SPACE = 0x10000000;

// The RcvArray side (core/exp_rcv.h). A segment is at most 256 KiB of
// 4 KiB pages; a request's ring holds MAX_FLOWS = roundup_pow_of_two(6 + 1).
inline constexpr u32 PAGE_SHIFT = 12;
inline constexpr u32 TID_RDMA_MAX_SEGMENT_SIZE = 1u << 18;  // 256 KiB
inline constexpr int TID_RDMA_MAX_PAGES = TID_RDMA_MAX_SEGMENT_SIZE >> PAGE_SHIFT;  // 64
inline constexpr int MAX_FLOWS = 8;
inline constexpr u16 TID_RDMA_MAX_READ_SEGS_PER_REQ = 6;
inline constexpr u16 TID_RDMA_MAX_WRITE_SEGS_PER_REQ = 4;
inline constexpr u32 TID_RDMA_SEGMENT_SHIFT = 18;

// The WRITE responder's allocator (hfi1_tid_write_alloc_resources).
// tid_rdma_defs.h: the ack queue entry opcode of a TID RDMA WRITE request.
inline constexpr u8 IB_OPCODE_TID_RDMA_WRITE_REQ = 0xe0;
#define TID_OP(x) IB_OPCODE_TID_RDMA_##x
// tid_rdma.h: qpriv->rnr_nak_state, the responder's RNR NAK of a request.
enum { TID_RNR_NAK_INIT = 0, TID_RNR_NAK_SEND, TID_RNR_NAK_SENT };
// tid_rdma.h: a TID RDMA request's state (req->state); the READ requester
// (hfi1_build_tid_rdma_read_req and its caller) moves it.
enum {
  TID_REQUEST_INACTIVE = 0,
  TID_REQUEST_INIT,
  TID_REQUEST_INIT_RESEND,
  TID_REQUEST_ACTIVE,
  TID_REQUEST_RESEND,
  TID_REQUEST_RESEND_ACTIVE,
  TID_REQUEST_QUEUED,
  TID_REQUEST_SYNC,
  TID_REQUEST_RNR_NAK,
  TID_REQUEST_COMPLETE,
};
// verbs.h: the most READs and atomics a QP may have in flight.
inline constexpr u8 HFI1_MAX_RDMA_ATOMIC = 16;
// NOT KERNEL: the segments of the TID READs the model's application posts
// (hfi1_qp_priv::model_read_segs; a test may raise it): few, so that a
// program of a few ops completes a READ (whose last response frees the
// flow).
inline constexpr u32 kModelReadSegs = 2;
// tid_rdma_defs.h: a TID READ's work request opcode (IB_WR_RESERVED2), and
// the opcode qp->s_state takes after a TID READ request.
inline constexpr u32 IB_WR_TID_RDMA_READ = 0xf1;
inline constexpr u8 IB_OPCODE_TID_RDMA_READ_REQ = 0xe4;
// ib_hdrs.h: a BTH's "ack requested" bit (in bth2).
inline constexpr u32 IB_BTH_REQ_ACK = 1u << 31;
// tid_rdma.h: qpriv->s_flags bit (the responder checks KDETH PSNs in software).
inline constexpr u32 HFI1_R_TID_SW_PSN = 1u << 19;
// ib_hdrs.h / rdma/ib_pack.h: the AETH's RNR NAK code and its timer field.
inline constexpr u8 IB_RNR_NAK = 0x20;
inline constexpr u32 IB_AETH_CREDIT_MASK = 0x1F;
// opa_port_info.h: the link's active speed and width (active_egress_rate).
inline constexpr u16 OPA_LINK_SPEED_12_5G = 0x0001;
inline constexpr u16 OPA_LINK_SPEED_25G = 0x0002;
inline constexpr u16 OPA_LINK_WIDTH_1X = 0x0001;
inline constexpr u16 OPA_LINK_WIDTH_2X = 0x0002;
inline constexpr u16 OPA_LINK_WIDTH_3X = 0x0004;
inline constexpr u16 OPA_LINK_WIDTH_4X = 0x0008;

// NOT KERNEL: the model gives each context this many expected RcvArray
// entries (the kernel: what is left after the eager entries, thousands), few
// enough that a handful of segments exhaust them and QPs wait on rarr_queue.
inline constexpr u16 kModelExpectedCount = 64;
inline constexpr u16 kModelRcvGroupSize = 8;  // dd->rcv_entries.group_size

#endif  // FLOWCHECK_CORE_HFI1_CONSTANTS_H_
