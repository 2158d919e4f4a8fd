#!/usr/bin/env python3
"""What would it take to meet the fuzz speed goal? exec/s of weakened builds.

  python3 tools/fuzz_ceiling_study.py [--seconds=10] [--reps=2]
                                      [--targets=reserve_fuzz,flow_fuzz]

docs/fuzz.md ("Speed") sets >= 100k exec/s and >= 30% of the empty target
for the op-sequence targets. This study measures how far each way of giving
something up would go, each a build of its own (own --platform_suffix, so
the real --config=fuzz outputs stay as they are):

  as-is        --config=fuzz: what the campaign runs
  end-checks   state comparison + invariants after each program's LAST op
               only (return values still compared after every call):
               fuzz/executor.cc built with FLOWCHECK_STUDY_END_CHECKS_ONLY
  blind-model  the model (core/) without coverage, ASan or UBSan: the
               fuzzer no longer sees the driver's branches
  blind+end    both
  empty        //fuzz:empty_fuzz in --config=fuzz (the ratio's yardstick)

Every target runs under every build for --seconds, -seed=1, its .options,
from a fresh copy of its committed seeds (as tools/fuzz_benchmark.py does);
the builds alternate within each of --reps rounds so the host's drift hits
them alike. Prints the median exec/s, the ratio to the empty target and to
as-is, and the mean input size (a blind build grows its inputs differently).
A measurement, not a test: exit 0 unless a run breaks.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_benchmark  # noqa: E402  (ROOT, build_fuzz(), run(), the goals)

ROOT = fuzz_benchmark.ROOT
END = r"--per_file_copt=^fuzz/executor\.cc@-DFLOWCHECK_STUDY_END_CHECKS_ONLY"
BLIND = ("--per_file_copt=^core/.*@-fno-sanitize=address,-fno-sanitize=undefined,"
         "-fno-sanitize=fuzzer-no-link")
# name -> extra bazel flags on top of --config=fuzz.
BUILDS = {
    "as-is": [],
    "end-checks": ["--platform_suffix=-fuzz-study-end", END],
    "blind-model": ["--platform_suffix=-fuzz-study-blind", BLIND],
    "blind+end": ["--platform_suffix=-fuzz-study-blind-end", BLIND, END],
}


def check_end_build(bin_dir):
    """An end-checks build must still catch what the state checks catch, at the
    end: fuzz/testdata/r1_strict_failure fails its step 2 in strict mode (an
    [R-1] mischarged dequeue, invariant W5) and leaves the state that way."""
    binary = os.path.join(bin_dir, "flow_fuzz_fuzzer")
    r = subprocess.run([binary, os.path.join(ROOT, "fuzz", "testdata", "r1_strict_failure")],
                       cwd=ROOT, text=True, errors="replace", stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, env={**os.environ, "FLOWCHECK_FUZZ_STRICT": "1"})
    if r.returncode == 0 or "FAIL [invariant W5] flow_fuzz op #2" not in r.stdout:
        sys.exit(f"fuzz_ceiling_study: {binary} no longer catches r1_strict_failure; the "
                 f"study build checks nothing and its speed would mean nothing:\n{r.stdout[-2000:]}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=int, default=10)
    p.add_argument("--reps", type=int, default=2)
    p.add_argument("--targets", default="reserve_fuzz,flow_fuzz")
    a = p.parse_args()
    targets = a.targets.split(",")
    labels = sorted({f"//fuzz:{t}_fuzzer" for t in targets} | {"//fuzz:flow_fuzz_fuzzer"})
    dirs = {name: fuzz_benchmark.build_fuzz(labels + (["//fuzz:empty_fuzz_fuzzer"]
                                                      if name == "as-is" else []), flags)
            for name, flags in BUILDS.items()}
    for name in ("end-checks", "blind+end"):
        check_end_build(dirs[name])
    execs = {}  # (target, build) -> [exec/s per rep]
    means = {}  # (target, build) -> [mean input per rep]
    with tempfile.TemporaryDirectory(prefix="fuzz-ceiling-study-") as work:
        for rep in range(a.reps):
            order = list(BUILDS) + ["empty"]
            if rep % 2:
                order.reverse()
            for t in targets:
                for name in order:
                    binary = (os.path.join(dirs["as-is"], "empty_fuzz_fuzzer") if name == "empty"
                              else os.path.join(dirs[name], t + "_fuzzer"))
                    print(f"round {rep + 1}/{a.reps}: {t} {name}, {a.seconds}s ...", flush=True)
                    run_dir = os.path.join(work, f"{rep}-{name.replace('+', '-')}")
                    os.makedirs(run_dir, exist_ok=True)
                    s = fuzz_benchmark.run(binary, t, a.seconds, run_dir)
                    execs.setdefault((t, name), []).append(s["average_exec_per_sec"])
                    means.setdefault((t, name), []).append(s["mean_input"])
    goal = fuzz_benchmark.GOAL_EXECS
    print(f"\n{'target':<14}{'build':<13}{'exec/s':>9}{'of empty':>10}{'of as-is':>10}"
          f"{'mean input':>12}   median of {a.reps} run(s) of {a.seconds}s; goal >= "
          f"{goal // 1000}k exec/s and >= {fuzz_benchmark.GOAL_RATIO:.0%} of empty")
    for t in targets:
        empty = statistics.median(execs[(t, "empty")])
        base = statistics.median(execs[(t, "as-is")])
        for name in list(BUILDS) + ["empty"]:
            e = statistics.median(execs[(t, name)])
            m = statistics.median(means[(t, name)])
            print(f"{t:<14}{name:<13}{e:>9.0f}{e / empty:>10.1%}{e / base:>9.2f}x"
                  f"{m:>10.0f} B   runs: {', '.join(str(x) for x in execs[(t, name)])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
