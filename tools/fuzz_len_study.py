#!/usr/bin/env python3
"""Input length against speed and depth: what a shorter -max_len buys and costs.

  python3 tools/fuzz_len_study.py [--seconds=60] [--targets=reserve_fuzz,flow_fuzz]
                                  [--lens=48,128,0]

The op-sequence targets spend ~0.6 us per op, so exec/s falls with input
length; the question docs/fuzz.md ("Speed") leaves open is whether shorter
inputs reach the same states. For each target and each -max_len (0: the
target's own .options value), one libFuzzer process runs for --seconds from a
copy of the committed seeds, with -seed=1 and the target's dictionary. Then
every resulting corpus is loaded by the same binary with the target's own
-max_len and -runs=0, so coverage (edges) and features (edges x hit-count
buckets: how many times each loop ran, a proxy for state depth) are counted
the same way for all of them. Prints one row per run. A measurement, not a
test: exit 0 unless a run breaks.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_benchmark  # noqa: E402  (build_fuzz())
import fuzz_target_flags  # noqa: E402

INITED_RE = re.compile(r"INITED cov: (\d+) ft: (\d+) corp: (\d+)/(\d+)(b|Kb|Mb)")
STAT_RE = re.compile(r"^stat::average_exec_per_sec:\s+(\d+)", re.M)


def own_max_len(target):
    n = fuzz_target_flags.max_len(os.path.join(ROOT, "fuzz"), target)
    if n is None:
        sys.exit(f"fuzz_len_study: fuzz/{target}.options sets no -max_len")
    return n


def run(cmd, work):
    r = subprocess.run(cmd, cwd=work, text=True, errors="replace",
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        sys.exit(f"fuzz_len_study: {' '.join(cmd)} failed (exit {r.returncode}):\n"
                 + r.stdout[-3000:])
    return r.stdout


def study(binary, target, max_len, seconds, work):
    own = own_max_len(target)
    corpus = os.path.join(work, f"{target}-{max_len}")
    shutil.copytree(os.path.join(ROOT, "fuzz", "corpus", target), corpus)
    dict_flag = [f for f in fuzz_target_flags.flags(os.path.join(ROOT, "fuzz"), target)
                 if f.startswith("-dict=")]
    out = run([binary, "-seed=1", f"-max_total_time={seconds}", "-print_final_stats=1",
               f"-max_len={max_len}", f"-artifact_prefix={work}/", *dict_flag, corpus], work)
    execs = int(STAT_RE.search(out).group(1))
    # The same yardstick for every corpus: loaded with the target's own bound.
    out = run([binary, "-runs=0", f"-max_len={own}", corpus], work)
    m = INITED_RE.search(out)
    if not m:
        sys.exit(f"fuzz_len_study: no INITED line loading {corpus}:\n{out[-2000:]}")
    sizes = [os.path.getsize(os.path.join(corpus, f)) for f in os.listdir(corpus)]
    return {"exec/s": execs, "cov": int(m.group(1)), "ft": int(m.group(2)),
            "corpus": len(sizes), "mean": sum(sizes) // max(1, len(sizes))}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=int, default=60)
    p.add_argument("--targets", default="reserve_fuzz,flow_fuzz")
    p.add_argument("--lens", default="48,128,0", help="-max_len values; 0: the target's own")
    a = p.parse_args()
    targets = a.targets.split(",")
    lens = [int(x) for x in a.lens.split(",")]
    labels = [f"//fuzz:{t}_fuzzer" for t in targets]
    bin_dir = fuzz_benchmark.build_fuzz(labels)
    rows = []
    with tempfile.TemporaryDirectory(prefix="fuzz-len-study-") as work:
        for t in targets:
            for n in lens:
                n = n or own_max_len(t)
                print(f"{t}: -max_len={n}, {a.seconds}s ...", flush=True)
                rows.append((t, n, study(os.path.join(bin_dir, t + "_fuzzer"), t, n,
                                         a.seconds, work)))
    print(f"\n{'target':<14}{'max_len':>8}{'exec/s':>9}{'cov':>6}{'ft':>7}{'corpus':>8}"
          f"{'mean input':>12}   (cov, ft: the final corpus loaded with the target's own -max_len)")
    for t, n, r in rows:
        print(f"{t:<14}{n:>8}{r['exec/s']:>9}{r['cov']:>6}{r['ft']:>7}{r['corpus']:>8}"
              f"{r['mean']:>10} B")
    return 0


if __name__ == "__main__":
    sys.exit(main())
