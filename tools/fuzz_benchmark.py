#!/usr/bin/env python3
"""Fuzz target speed: each target's exec/s next to an empty target's.

  python3 tools/fuzz_benchmark.py [--seconds=15] [--targets=reserve_fuzz,...]

Builds every fuzz target and //fuzz:empty_fuzz with --config=fuzz (libFuzzer
+ ASan + UBSan, -O1) and, for each target, runs in one process (no fork, one
job), one after the other:
  empty_fuzz with the target's .options, on a copy of the target's corpus
  the target                         , on another copy of it
both with -seed=1 for --seconds each. The empty target is libFuzzer's own
ceiling in the same input-size regime (same -max_len, same starting inputs),
so the ratio is the share of that ceiling the target keeps. Prints exec/s,
the ratio and the mean input size the target ran. exec/s is tracked, not
gated (docs/fuzz.md, "Speed": time to detect and coverage are the goals):
exit status 0, or 1 if a run breaks.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowcheck_tools import ROOT, bazel, libfuzzer  # noqa: E402

TARGETS = ["reserve_fuzz", "flow_fuzz", "pure_fuzz"]


def run(binary, target, seconds, work):
    corpus = os.path.join(work, os.path.basename(binary) + "-" + target)
    shutil.copytree(os.path.join(ROOT, "fuzz", "corpus", target), corpus)
    cmd = libfuzzer.command(binary, os.path.join(ROOT, "fuzz"), target, [corpus], seed=1,
                            seconds=seconds, artifact_prefix=work, final_stats=True,
                            dictionary=False)
    r = subprocess.run(cmd, cwd=work, text=True, errors="replace",
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    stats = {k: int(v) for k, v in libfuzzer.FINAL_STAT_RE.findall(r.stdout)}
    if r.returncode != 0 or "average_exec_per_sec" not in stats:
        sys.exit(f"fuzz_benchmark: {' '.join(cmd)} failed (exit {r.returncode}):\n"
                 + r.stdout[-3000:])
    sizes = [os.path.getsize(os.path.join(corpus, f)) for f in os.listdir(corpus)]
    stats["mean_input"] = sum(sizes) // max(1, len(sizes))
    return stats


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=int, default=15)
    p.add_argument("--targets", default=",".join(TARGETS))
    a = p.parse_args()
    targets = a.targets.split(",")
    labels = [f"//fuzz:{t}_fuzzer" for t in targets] + ["//fuzz:empty_fuzz_fuzzer"]
    print(f"building {' '.join(labels)} with --config=fuzz", flush=True)
    bazel.build(labels, "fuzz")
    bin_root = bazel.bin_dir("fuzz")
    empty = bazel.binary("//fuzz:empty_fuzz_fuzzer", bin_root=bin_root)
    rows = []
    with tempfile.TemporaryDirectory(prefix="fuzz-benchmark-") as work:
        for t in targets:
            print(f"{t}: empty target, then {t}, {a.seconds}s each ...", flush=True)
            e = run(empty, t, a.seconds, work)
            s = run(bazel.binary(f"//fuzz:{t}_fuzzer", bin_root=bin_root), t, a.seconds, work)
            rows.append((t, s, e))
    print(f"\n{'target':<14}{'exec/s':>10}{'empty exec/s':>14}{'ratio':>8}{'mean input':>12}")
    for t, s, e in rows:
        eps, base = s["average_exec_per_sec"], e["average_exec_per_sec"]
        print(f"{t:<14}{eps:>10}{base:>14}{eps / base if base else 0.0:>8.1%}"
              f"{s['mean_input']:>10} B")
    return 0


if __name__ == "__main__":
    sys.exit(main())
