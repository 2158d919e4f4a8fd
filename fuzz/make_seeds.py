#!/usr/bin/env python3
"""Writes the committed seed corpora fuzz/corpus/{reserve,flow,pure}_fuzz/.

  python3 fuzz/make_seeds.py      # rewrites every seed-* file (deterministic)

Each seed is a small hand-written program in the version-1 formats of
docs/fuzz-format.md, aimed at one behaviour the fuzzer should start from
(every class of `last`, a full bitmap, the FIFO hand-off, RESYNC at the
generation wrap, [R-1], ...). Seeds only ever get added: a seed whose bytes
change is a new seed. //fuzz:*_fuzz replays all of them in every config.
"""

import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# --- reserve_fuzz: 'R' 0x01, records (op, sel, raw u32 LE) -------------------
RESERVE, RELEASE_OWNED, RELEASE_INDEX, QP_SETUP, QP_CLEAR, FILL, RELEASE_ALL, RUN_WORK = range(8)


def r(op, sel=0, raw=0):
    return struct.pack("<BBI", op, sel, raw & 0xFFFFFFFF)


def reserve(last):
    """A record whose `last` decodes to the given value (DecodeLast)."""
    if 0 <= last <= 33:
        return r(RESERVE, 0, last)          # selector 0..3: raw % 34
    edges = [-1, -(2**31), 2**31 - 1, 32, 31, 0, 64, -(2**31) + 1]
    if last in edges:
        return r(RESERVE, 4, edges.index(last))
    return r(RESERVE, 6, last)              # selector 6, 7: the raw int


RESERVE_SEEDS = {
    "every-class-of-last": [reserve(x) for x in (5, 5, 32, 33, -1, -(2**31), 2**31 - 1, 31, 0,
                                                 64, -34, 12345678, -987654)],
    "full-bitmap-then-eagain": [r(FILL), reserve(3), reserve(-1), r(RELEASE_INDEX, 7),
                                reserve(7), r(RELEASE_ALL), reserve(32)],
    "release-owned-and-not-owned": [reserve(4), reserve(9), r(RELEASE_INDEX, 5), r(RELEASE_INDEX, 0xFF),
                                    r(RELEASE_INDEX, 40), r(RELEASE_OWNED, 1), r(RELEASE_OWNED, 0),
                                    r(RELEASE_OWNED, 0), r(RELEASE_INDEX, 4)],
    "qps-and-harness-share-flows": [r(QP_SETUP, 0), r(FILL), r(QP_SETUP, 1), r(RELEASE_INDEX, 0),
                                    r(QP_CLEAR, 0), r(RUN_WORK), r(RUN_WORK), r(RELEASE_INDEX, 0),
                                    r(QP_CLEAR, 1), r(RELEASE_ALL), r(QP_SETUP, 0)],
    "preferred-flow-reuse": [reserve(31), r(RELEASE_OWNED), reserve(31), reserve(31), reserve(30),
                             r(RELEASE_ALL)],
}

# --- flow_fuzz: 'F' 0x01 nqps seed(u16), records (op, qp, a, b) ---------------
(SETUP, CLEAR, FLUSH, RARR_WAIT, RARR_GRANT, RARR_RELEASE, SET_WANTS, RESYNC, CLEAR_RESYNC,
 RUN, RUN_ALL, F_RESERVE, F_RELEASE_OWNED) = range(13)


def fh(nqps, seed):
    return b"F\x01" + struct.pack("<BH", nqps - 1, seed)


def f(op, qp=0, a=0, b=0):
    return struct.pack("<BBBB", op, qp, a, b)


FLOW_SEEDS = {
    "fifo-handoff-chain": (fh(4, 11), [f(F_RESERVE, 0, 0, i) for i in range(31)] +
                           [f(SETUP, 0)] +
                           [x for q in (1, 2, 3) for x in (f(SET_WANTS, q, 1), f(SETUP, q))] +
                           [f(CLEAR, 0), f(RUN_ALL), f(F_RELEASE_OWNED, 0, 4), f(SETUP, 0),
                            f(CLEAR, 1), f(RUN_ALL), f(CLEAR, 2), f(CLEAR, 3), f(RUN_ALL)]),
    "r1-mischarged-dequeue": (fh(3, 5), [f(SETUP, 0), f(RARR_WAIT, 0), f(FLUSH, 0), f(SETUP, 1),
                                         f(RARR_WAIT, 1), f(RARR_GRANT, 1), f(RARR_GRANT, 0),
                                         f(RARR_RELEASE, 0), f(RUN_ALL), f(CLEAR, 0), f(SETUP, 0)]),
    "rarr-queue-order": (fh(3, 2), [f(SETUP, q) for q in range(3)] +
                         [f(RARR_WAIT, 0), f(RARR_GRANT, 1), f(RARR_GRANT, 2), f(RARR_GRANT, 0),
                          f(RARR_RELEASE, 0), f(RUN_ALL), f(RARR_GRANT, 1), f(RARR_RELEASE, 1),
                          f(RUN_ALL), f(RARR_RELEASE, 2)]),
    "resync-every-choice": (fh(2, 3), [f(RESYNC, 0, c, 7) for c in range(8)] +
                            [f(CLEAR_RESYNC, 0), f(SETUP, 0)] +
                            [x for c in range(8) for x in (f(RESYNC, 0, c, 9), f(CLEAR_RESYNC, 0))] +
                            [f(CLEAR, 0), f(SETUP, 1), f(RESYNC, 1, 0, 0)]),
    "resync-at-the-generation-wrap": (fh(1, 9), [f(RESYNC, 0, 4), f(CLEAR_RESYNC, 0), f(SETUP, 0),
                                                 f(RESYNC, 0, 3), f(CLEAR_RESYNC, 0), f(CLEAR, 0),
                                                 f(SETUP, 0), f(CLEAR, 0)]),
    "eight-qps-wants-flow": (fh(8, 1234), [f(F_RESERVE, 0, 4, 0)] * 28 +
                             [x for q in range(8) for x in (f(SET_WANTS, q, 1), f(SETUP, q))] +
                             [f(RUN, 0), f(FLUSH, 5), f(F_RELEASE_OWNED, 0, 2), f(CLEAR, 0),
                              f(RUN_ALL), f(CLEAR, 1), f(CLEAR, 2), f(RUN_ALL), f(CLEAR, 3),
                              f(CLEAR, 4), f(RUN_ALL)]),
}

# --- pure_fuzz: 'P' 0x01, records (op, sel, raw1 u32, raw2 u32) ----------------
GEN, REG, RESERVE_MASK, POSITION, MASK_PSN, BITOPS = range(6)


def p(op, sel=0, raw1=0, raw2=0):
    return struct.pack("<BBII", op, sel, raw1 & 0xFFFFFFFF, raw2 & 0xFFFFFFFF)


PURE_SEEDS = {
    "generation-edges": [p(GEN, 1, i) for i in range(8)] + [p(GEN, 2, i) for i in range(4)] +
                        [p(GEN, 0, 0x12345), p(GEN, 3, 0xFFFFFFFF)],
    "register-encoding": [p(REG, 1, i, i * 5) for i in range(8)] + [p(REG, 0, 0x777, 31)],
    "reserve-on-any-mask": [p(RESERVE_MASK, 0x40, 0, 0), p(RESERVE_MASK, 0x80, 17, 3),
                            p(RESERVE_MASK, 0x84, 0, 1), p(RESERVE_MASK, 0xC0, 0xAB, 0),
                            p(RESERVE_MASK, 0x06, 0x0000FFFF, 0xFFFFFFFF),
                            p(RESERVE_MASK, 0x00, 0x7FFFFFFF, 31), p(RESERVE_MASK, 0x05, 5, 2)],
    "position-wraparound": [p(POSITION, 0x07, 0, 0xFE), p(POSITION, 0x06, 5, 3),
                            p(POSITION, 0x00, 1, 0xFFFFFFFF), p(POSITION, 0x04, 0x80000000, 0x80)],
    "psn-and-bitops": [p(MASK_PSN, 0, 0xFFFFFFFF), p(MASK_PSN, 0, 0x80000000),
                       p(BITOPS, 0x40 | 5), p(BITOPS, 0x80 | 63), p(BITOPS, 31, 0xFFFFFFFF, 0),
                       p(BITOPS, 32, 0xFFFFFFFF, 1)],
}


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as out:
        out.write(data)


def main():
    for name, recs in RESERVE_SEEDS.items():
        write("reserve_fuzz", name, b"R\x01" + b"".join(recs))
    for name, (header, recs) in FLOW_SEEDS.items():
        write("flow_fuzz", name, header + b"".join(recs))
    for name, recs in PURE_SEEDS.items():
        write("pure_fuzz", name, b"P\x01" + b"".join(recs))


if __name__ == "__main__":
    main()
