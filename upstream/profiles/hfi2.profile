# upstream/profiles/hfi2.profile: Cornelis Networks' hfi2 driver
# (drivers/infiniband/hw/hfi2), the successor of hfi1 with the same TID RDMA
# flow layer under hfi2_* names. Select it with --config=upstream_hfi2 and
# FLOWCHECK_KERNEL_SRC=<tree> (docs/upstream.md, "Driver profiles").
# The format is described in upstream/profiles/README.md.

name hfi2
dir drivers/infiniband/hw/hfi2

# Every identifier of the extracted functions containing one of these must be
# covered by a map line below (the build fails naming it otherwise).
mapped hfi2 HFI2

# The driver's identifiers -> the harness's (hfi1's). A trailing * maps a
# whole family by prefix.
map hfi2_ctxtdata hfi1_ctxtdata
map hfi2_qp_priv hfi1_qp_priv
map hfi2_swqe_priv hfi1_swqe_priv
map hfi2_devdata hfi1_devdata
map hfi2_ibdev hfi1_ibdev
map HFI2_S_WAIT_TID_SPACE HFI1_S_WAIT_TID_SPACE
map HFI2_KDETH_BTH_SEQ_SHIFT HFI1_KDETH_BTH_SEQ_SHIFT
map HFI2_KDETH_BTH_SEQ_MASK HFI1_KDETH_BTH_SEQ_MASK
map hfi2_schedule_send hfi1_schedule_send
map hfi2_do_send hfi1_do_send
map hfi2_kern_* hfi1_kern_*
map hfi2_tid_rdma_flush_wait hfi1_tid_rdma_flush_wait
# The RcvArray side's driver helpers.
map hfi2_put_tid hfi1_put_tid
map hfi2_wait_kmem hfi1_wait_kmem
map hfi2_tid_rdma_reset_flow hfi1_tid_rdma_reset_flow
map trace_hfi2_* trace_hfi1_*
# The TID WRITE responder's allocator and its RNR timeout helpers (hfi2's
# text names them hfi2_tid_write_alloc_resources, ...), and the flag it clears.
map hfi2_tid_write_alloc_resources hfi1_tid_write_alloc_resources
# The TID READ requester's segment builder and the packet builder it calls
# (hfi2's text: hfi2_build_tid_rdma_read_req, ..._read_packet).
map hfi2_build_tid_rdma_read_req hfi1_build_tid_rdma_read_req
map hfi2_build_tid_rdma_read_packet hfi1_build_tid_rdma_read_packet
map hfi2_compute_tid_* hfi1_compute_tid_*
map HFI2_R_TID_SW_PSN HFI1_R_TID_SW_PSN
# The device's work queue: hfi2 keeps it in the device (dd->hfi2_wq), hfi1
# in the port (ppd->hfi1_wq); the model's device is its one port.
map hfi2_wq hfi1_wq
# The driver's main header (#include "hfi2.h"): not part of any extracted
# function; used when a hfi2-shaped file is generated from hfi1's.
file hfi2.h hfi.h

# Declarations that differ from upstream/functions.txt (written in the
# harness's names, after the map): read_r_next_psn takes the context as u16.
decl read_r_next_psn | static u32 read_r_next_psn(struct hfi1_devdata *dd, u16 ctxt, u8 fidx) |
# hfi2 dropped the port lookups of tid_rdma_schedule_tid_wakeup; `dd` is used
# (dd->hfi2_wq), so no warning needs to be off.
decl tid_rdma_schedule_tid_wakeup | static void tid_rdma_schedule_tid_wakeup(struct rvt_qp *qp) |
