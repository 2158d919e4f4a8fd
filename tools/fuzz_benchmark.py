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
the ratio, the mean input size the target ran, and PASS/FAIL against the
goals (docs/fuzz.md, "Speed"): >= 100k exec/s and >= 30% of empty.
Exit status 0 even when a goal fails (it is a measurement, not a test);
1 only if a run breaks.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import fuzz_target_flags

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = ["reserve_fuzz", "flow_fuzz", "pure_fuzz"]
GOAL_EXECS, GOAL_RATIO = 100_000, 0.30
STAT_RE = re.compile(r"^stat::(\w+):\s+(\d+)", re.M)


def bazel(*args):
    return subprocess.run(["bazel", *args], cwd=ROOT, check=True, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout


def build_fuzz(labels, extra=()):
    """bazel build --config=fuzz [extra flags] labels; returns that build's
    bazel-bin/fuzz (extra flags such as --platform_suffix move it)."""
    args = ["--config=fuzz", *extra]
    subprocess.run(["bazel", "build", *args, *labels], cwd=ROOT, check=True)
    return os.path.join(bazel("info", *args, "bazel-bin").strip(), "fuzz")


def run(binary, target, seconds, work):
    corpus = os.path.join(work, os.path.basename(binary) + "-" + target)
    shutil.copytree(os.path.join(ROOT, "fuzz", "corpus", target), corpus)
    cmd = [binary, "-seed=1", f"-max_total_time={seconds}", "-print_final_stats=1",
           f"-artifact_prefix={work}/", *fuzz_target_flags.options(os.path.join(ROOT, "fuzz"), target), corpus]
    r = subprocess.run(cmd, cwd=work, text=True, errors="replace",
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    stats = {k: int(v) for k, v in STAT_RE.findall(r.stdout)}
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
    bin_dir = build_fuzz(labels)
    empty = os.path.join(bin_dir, "empty_fuzz_fuzzer")
    rows = []
    with tempfile.TemporaryDirectory(prefix="fuzz-benchmark-") as work:
        for t in targets:
            print(f"{t}: empty target, then {t}, {a.seconds}s each ...", flush=True)
            e = run(empty, t, a.seconds, work)
            s = run(os.path.join(bin_dir, t + "_fuzzer"), t, a.seconds, work)
            rows.append((t, s, e))
    print(f"\n{'target':<14}{'exec/s':>10}{'empty exec/s':>14}{'ratio':>8}"
          f"{'mean input':>12}  goal >= {GOAL_EXECS // 1000}k exec/s and >= {GOAL_RATIO:.0%}")
    for t, s, e in rows:
        eps, base = s["average_exec_per_sec"], e["average_exec_per_sec"]
        ratio = eps / base if base else 0.0
        ok = eps >= GOAL_EXECS and ratio >= GOAL_RATIO
        print(f"{t:<14}{eps:>10}{base:>14}{ratio:>8.1%}{s['mean_input']:>10} B  "
              f"{'PASS' if ok else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
