#!/usr/bin/env python3
"""Writes an hfi2-shaped tid_rdma.c generated from hfi1's, for CI.

  hfi2_shaped.py --hfi1=third_party/src/linux-hfi1/drivers/infiniband/hw/hfi1/tid_rdma.c \\
      --profile=upstream/profiles/hfi2.profile --out=DIR

The hfi2 driver's tree is not needed to test the hfi2 profile: its flow layer
is hfi1's under hfi2_* names plus the few changes listed in SUBSTITUTIONS
(each one what the hfi2 text at the commit recorded in docs/findings.md
has). This applies those changes to hfi1's text, then the profile's name map
backwards (hfi1_ctxtdata -> hfi2_ctxtdata, ...), and writes
DIR/drivers/infiniband/hw/hfi2/tid_rdma.c (the profile's `dir`) and DIR/SOURCE.
tools/test.sh runs the hfi2 profile's suites on it; //upstream:profiles_test
checks the round trip (the generated functions, mapped back, are hfi1's but
for exactly these changes).

Fails (exit 1, one line on stderr) when a change no longer matches hfi1's
text the expected number of times. Files are written atomically.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extract_kernel as ek  # noqa: E402

# (what it is, hfi1's text, hfi2's text, how many times). Applied to hfi1's
# text before the names are mapped, so both sides are in hfi1's names.
SUBSTITUTIONS = [
    ("the flow table register is per chip (kern_set_hw_flow)",
     "RCV_TID_FLOW_TABLE + 8 * flow_idx",
     "rcd->dd->params->rcv_tid_flow_table_reg + 8 * flow_idx", 1),
    ("the flow table register is per chip (read_r_next_psn)",
     "RCV_TID_FLOW_TABLE + (8 * fidx)",
     "dd->params->rcv_tid_flow_table_reg + (8 * fidx)", 1),
    ("read_r_next_psn takes the context as u16 (prototype and definition)",
     "read_r_next_psn(struct hfi1_devdata *dd, u8 ctxt, u8 fidx)",
     "read_r_next_psn(struct hfi1_devdata *dd, u16 ctxt, u8 fidx)", 2),
    ("the wakeup work queue is the device's, no port lookups",
     "\tstruct hfi1_qp_priv *priv;\n\tstruct hfi1_ibport *ibp;\n"
     "\tstruct hfi1_pportdata *ppd;\n\tstruct hfi1_devdata *dd;\n\tbool rval;\n\n"
     "\tif (!qp)\n\t\treturn;\n\n\tpriv = qp->priv;\n"
     "\tibp = to_iport(qp->ibqp.device, qp->port_num);\n\tppd = ppd_from_ibp(ibp);\n"
     "\tdd = dd_from_ibdev(qp->ibqp.device);\n",
     "\tstruct hfi1_qp_priv *priv;\n\tstruct hfi1_devdata *dd;\n\tbool rval;\n\n"
     "\tif (!qp)\n\t\treturn;\n\n\tpriv = qp->priv;\n"
     "\tdd = dd_from_ibdev(qp->ibqp.device);\n", 1),
    ("(the same) queue_work_on's work queue",
     "\t\t\t     ppd->hfi1_wq,\n\t\t\t     &priv->tid_rdma.trigger_work);",
     "\t\t\t     dd->hfi1_wq, &priv->tid_rdma.trigger_work);", 1),
    ("hfi1_tid_rdma_flush_wait returns early when the QP has no context",
     "\tstruct hfi1_qp_priv *priv = qp->priv;\n\n"
     "\t_tid_rdma_flush_wait(qp, &priv->rcd->flow_queue);",
     "\tstruct hfi1_qp_priv *priv = qp->priv;\n\n\tif (!priv->rcd)\n\t\treturn;\n"
     "\t_tid_rdma_flush_wait(qp, &priv->rcd->flow_queue);", 1),
]

_IDENT = re.compile(r"[A-Za-z_]\w*")


class ShapeError(Exception):
    """One line saying which change no longer matches."""


def substitute(hfi1_text):
    """hfi1's text with SUBSTITUTIONS applied (still in hfi1's names)."""
    for what, old, new, count in SUBSTITUTIONS:
        found = hfi1_text.count(old)
        if found != count:
            raise ShapeError(f"hfi1's tid_rdma.c has {found} copies of the text changed for "
                             f"'{what}' (expected {count}): update upstream/hfi2_shaped.py")
        hfi1_text = hfi1_text.replace(old, new)
    return hfi1_text


def rename(text, profile):
    """Every identifier the profile maps, written in the driver's name; the
    profile's header names (`file` lines) likewise."""
    text = _IDENT.sub(lambda m: profile.to_driver(m.group(0)), text)
    for driver, harness in profile.files.items():
        text = text.replace(f'#include "{harness}"', f'#include "{driver}"')
    return text


def generate(hfi1_text, profile):
    return rename(substitute(hfi1_text), profile)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hfi1", required=True, help="hfi1's tid_rdma.c")
    ap.add_argument("--profile", required=True, help="upstream/profiles/hfi2.profile")
    ap.add_argument("--out", required=True, help="the tree to write")
    args = ap.parse_args(argv)
    try:
        try:
            with open(args.hfi1, encoding="utf-8", errors="surrogateescape") as f:
                hfi1_text = f.read()
            with open(args.profile, encoding="utf-8") as f:
                profile = ek.parse_profile(f.read(), display=os.path.basename(args.profile))
        except OSError as e:
            raise ShapeError(f"cannot read {e.filename}: {e.strerror}")
        text = generate(hfi1_text, profile)
        out = os.path.join(args.out, profile.directory, "tid_rdma.c")
        try:
            os.makedirs(os.path.dirname(out), exist_ok=True)
        except OSError as e:
            raise ShapeError(f"cannot create {os.path.dirname(out)}: {e.strerror}")
        ek.write_atomically(out, text)
        ek.write_atomically(os.path.join(args.out, "SOURCE"),
                            f"generated: hfi2-shaped by upstream/hfi2_shaped.py from "
                            f"{os.path.abspath(args.hfi1)}\n")
    except (ShapeError, ek.ExtractError, ek.ProfileError) as e:
        print(f"hfi2_shaped: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
