#!/usr/bin/env python3
"""flowcheck's bounded fuzz + stress campaign (the README's main job).

Run through tools/campaign.sh, which bootstraps the machine first.

  tools/campaign.sh [--seconds=120] [--jobs=N] [--targets=a,b] [--fuzz-share=0.6]
                    [--out=out] [--no-stress] [--no-fuzz] [--stop-grace=10]
                    [--seed_from=DIR[,DIR]]... [--resume | --no-resume]
  tools/campaign.sh --merge [--minimize] [--seed_from=DIR] [--targets=a,b] [--out=out]
  tools/campaign.sh --minimize [--targets=a,b] [--out=out]

Fuzzing: every cc_binary tagged "fuzzer" (made by cc_fuzz_test) is built with
--config=fuzz and run with libFuzzer's -fork=N (all cores) for its share of
the time, with T.dict and T.options next to its BUILD file. The kept corpus
of target T is OUT/fuzz/T/corpus/, kept across runs; a run reads it
(--resume, the default; --no-resume leaves it out), the committed
fuzz/corpus/T/ and fuzz/regressions/T/ and every --seed_from directory, and
libFuzzer writes its new finds into OUT/fuzz/T/new/. After each target they
are merged into the kept corpus: libFuzzer -merge=1 into a copy that
replaces it only whole, so it only grows, and a kill at any moment leaves a
state the next run recovers (tools/campaign_fuzz.py).

--seed_from=DIR (repeatable, or DIR,DIR): more inputs, e.g. a corpus
downloaded from ClusterFuzzLite storage. A DIR with subdirectories holds one
per target, named like the target (flow_fuzz/ or flow_fuzz_fuzzer/); a DIR
without holds inputs for every target (each keeps those of its own format).
--merge: no fuzzing, no stress: merge OUT/fuzz/T/new/ (what a killed run
left), the seeds and --seed_from into the kept corpus. --minimize: no
fuzzing, no stress: write the kept corpus minimized to OUT/fuzz/T/corpus.min/
(replaced whole; the kept corpus is only read); after the merge if both.

Crashes land in OUT/fuzz/T/crashes/ (libFuzzer keeps fuzzing after one,
-ignore_crashes=1). After each target every new crash file is replayed once
and given a signature (what failed and where, flowcheck_tools/signature.py);
only the first file of each signature stays in crashes/, the others are
counted in OUT/fuzz/T/signatures.json and deleted. The summary has one row
per signature: its count, the first file and the reproduce command.

Stress: every target tagged "stress_campaign" is built with --config=tsan and
run with --seconds=S --json_out=OUT/stress/NAME.json; its output is shown and
kept in OUT/stress/NAME.log. Its verdict is this run's: pass, fail (with the
failure line and the rerun command) or interrupted (tools/campaign_stress.py).

OUT is --out (default: out/ in the repository), relative to the directory
the command runs in; every path printed is absolute. FLOWCHECK_FUZZ_STRICT=1
in the environment makes the targets fail on the kernel's own hazards too
(upstream divergences, docs/fuzz.md); the printed reproduce commands then
carry --strict.

Ctrl-C (or SIGTERM) stops the current run: the fuzzer or driver gets SIGINT
and --stop-grace seconds before SIGKILL (a second Ctrl-C kills at once);
corpora are kept, the summary printed, the exit status is 130. Otherwise the
exit status is 1 if anything crashed or failed, else 0; 2 for a bad flag or
another campaign using OUT. The summary also goes to OUT/campaign-summary.json.
"""

import argparse
import fcntl
import os
import shlex
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowcheck_tools import ROOT, bazel  # noqa: E402
from flowcheck_tools.atomic import WriteError, write_json  # noqa: E402
from campaign_fuzz import FuzzRun, log, target_name  # noqa: E402
from campaign_stress import run_stress  # noqa: E402


def usage_error(msg):
    print(f"campaign: {msg}", file=sys.stderr)
    sys.exit(2)


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse prints the usage too)
        usage_error(f"{message} (see --help)")


def parse_args():
    p = Parser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=int, default=120, help="total fuzz + stress time")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--targets", help="comma-separated fuzz target names (default: all)")
    p.add_argument("--fuzz-share", type=float, default=0.6)
    p.add_argument("--out", default=os.path.join(ROOT, "out"),
                   help="state and reports (default: out/ in the repository)")
    p.add_argument("--no-fuzz", action="store_true")
    p.add_argument("--no-stress", action="store_true")
    p.add_argument("--stop-grace", type=float, default=10.0,
                   help="seconds an interrupted fuzzer or driver gets before SIGKILL")
    p.add_argument("--seed_from", action="append", default=[], metavar="DIR[,DIR]",
                   help="more inputs: flat, or one subdirectory per target (repeatable)")
    p.add_argument("--resume", dest="resume", action="store_true", default=True,
                   help="fuzz from the kept corpus too (default)")
    p.add_argument("--no-resume", dest="resume", action="store_false",
                   help="fuzz from the seeds only (new finds are still merged in)")
    p.add_argument("--merge", action="store_true",
                   help="only merge new finds, seeds and --seed_from into the kept corpora")
    p.add_argument("--minimize", action="store_true",
                   help="only write each kept corpus minimized to OUT/fuzz/T/corpus.min")
    a = p.parse_args()
    if a.seconds <= 0 or a.jobs <= 0 or not 0 <= a.fuzz_share <= 1 or not a.stop_grace >= 0:
        usage_error("--seconds and --jobs must be positive, --fuzz-share in [0, 1], "
                    "--stop-grace >= 0")
    if a.targets is not None:
        a.targets = a.targets.split(",")
        if not all(t.strip() for t in a.targets):
            usage_error("--targets names no target (give names separated by commas, "
                        "or leave the flag out to run every fuzz target)")
        if a.no_fuzz:
            usage_error("--targets selects fuzz targets but --no-fuzz runs none")
    a.seed_from = [os.path.abspath(d) for v in a.seed_from for d in v.split(",") if d]
    for d in a.seed_from:
        if not os.path.isdir(d):
            usage_error(f"--seed_from={d}: " + ("not a directory" if os.path.exists(d)
                                                else "no such directory"))
    if (a.merge or a.minimize) and a.no_fuzz:
        usage_error("--merge and --minimize work on the fuzz corpora but --no-fuzz runs none")
    return a


def lock_out_dir(out):
    """Holds OUT/.campaign.lock for this process's life: one campaign per OUT
    (a second one would recover corpora the first is replacing)."""
    try:
        os.makedirs(out, exist_ok=True)
        f = open(os.path.join(out, ".campaign.lock"), "w")
    except OSError as e:
        usage_error(f"cannot use --out={out}: {e.strerror}")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        usage_error(f"another campaign is running with --out={out}")
    return f


def select_fuzzers(a):
    # "no_campaign": targets that exist for other tools (//fuzz:empty_fuzz is
    # tools/fuzz_benchmark.py's yardstick).
    fuzzers = bazel.query_tagged("fuzzer", "cc_binary", unless="no_campaign")
    if a.targets is None:
        return fuzzers
    known = sorted(target_name(f) for f in fuzzers)
    unknown = sorted(set(t.strip() for t in a.targets) - set(known))
    if unknown:
        usage_error(f"unknown fuzz target(s): {', '.join(unknown)} (known: {', '.join(known)})")
    wanted = {t.strip() for t in a.targets}
    return [f for f in fuzzers if target_name(f) in wanted]


def seed_from_dirs(dirs, name):
    """Target `name`'s directories among --seed_from: DIR/name or
    DIR/name_fuzzer of a DIR with subdirectories, a DIR without them whole."""
    found = []
    for d in dirs:
        if any(e.is_dir() for e in os.scandir(d)):
            found += [os.path.join(d, s) for s in (name, name + "_fuzzer")
                      if os.path.isdir(os.path.join(d, s))]
        else:
            found.append(d)
    return found


def check_seed_from(dirs, names):
    """A DIR with subdirectories must have one named like a selected target."""
    for d in dirs:
        if any(e.is_dir() for e in os.scandir(d)) and not any(seed_from_dirs([d], n)
                                                              for n in names):
            usage_error(f"--seed_from={d} has subdirectories but none named like a selected "
                        f"fuzz target ({', '.join(sorted(names))}, or NAME_fuzzer)")


def corpus_only(runs, a):
    """--merge and/or --minimize: no fuzzing; 130 if interrupted, else 0."""
    try:
        for run in runs:  # start-up: every corpus whole before anything runs
            run.recover()
        for run in runs:
            if a.merge:
                run.merge()
            if a.minimize and not run.interrupted:
                run.minimize()
            if run.interrupted:
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        log("interrupted: corpora kept")
        return 130
    print("\n=== corpus summary", flush=True)
    for run in runs:
        line = f"{run.name}: {run.corpus.path}: {run.corpus.count()} inputs"
        if a.merge:
            line += f" ({run.merged or 0} added by the merge)"
        if a.minimize:
            line += f"; minimized: {run.minimized.path}: {run.minimized.count()} inputs"
        print(line, flush=True)
    return 0


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def main():
    # Explicit handlers: a parent shell may have started us with SIGINT
    # ignored, and SIGTERM (a CI timeout) must keep the corpora too.
    signal.signal(signal.SIGINT, _raise_interrupt)
    signal.signal(signal.SIGTERM, _raise_interrupt)
    a = parse_args()
    out = os.path.abspath(a.out)
    lock = lock_out_dir(out)  # noqa: F841 (held until exit)
    try:
        fuzzers = [] if a.no_fuzz else select_fuzzers(a)
        check_seed_from(a.seed_from, [target_name(f) for f in fuzzers])
        corpus_mode = a.merge or a.minimize
        stressors = [] if a.no_stress or corpus_mode else bazel.query_tagged(
            "stress_campaign", "cc_binary")
        if not fuzzers and not stressors:
            log("nothing to run: no fuzz targets or stress drivers selected")
            return 0
        if fuzzers:
            log(f"building {len(fuzzers)} fuzz target(s) with --config=fuzz")
            bazel.build(fuzzers, "fuzz")
            fuzz_bin = bazel.bin_dir("fuzz")
        if stressors:
            log(f"building {len(stressors)} stress driver(s) with --config=tsan")
            bazel.build(stressors, "tsan")
            tsan_bin = bazel.bin_dir("tsan")
    except KeyboardInterrupt:
        log("interrupted before anything ran")
        return 130
    except subprocess.CalledProcessError as e:
        log(f"failed: {' '.join(e.cmd)}")
        return 1

    fuzz_s = a.seconds if not stressors else int(a.seconds * a.fuzz_share)
    stress_s = a.seconds - fuzz_s if fuzzers else a.seconds
    per_target = max(1, fuzz_s // max(1, len(fuzzers)))
    try:
        runs = [FuzzRun(f, fuzz_bin, out, a.jobs, per_target, a.stop_grace,
                        seed_from=seed_from_dirs(a.seed_from, target_name(f)), resume=a.resume)
                for f in fuzzers]
    except WriteError as e:  # an unreadable OUT/fuzz/T/signatures.json
        log(str(e))
        return 1
    if corpus_mode:
        return corpus_only(runs, a)
    results = {"fuzz": [], "stress": []}
    interrupted = False
    try:
        for run in runs:  # start-up: every corpus whole before anything runs
            run.recover()
        for run in runs:
            try:
                run.run()
            finally:
                results["fuzz"].append(run.summary())
            if run.interrupted:
                raise KeyboardInterrupt
        per_stress = max(1, stress_s // max(1, len(stressors)))
        for label in stressors:
            r = run_stress(label, tsan_bin, out, per_stress, a.stop_grace)
            results["stress"].append(r)
            if r["outcome"] == "interrupted":
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        interrupted = True
    except WriteError as e:
        log(str(e))
        return 1

    failed = print_summary(results)
    summary_path = os.path.join(out, "campaign-summary.json")
    signatures = [{"target": s["target"], **row} for s in results["fuzz"]
                  for row in s.get("signatures", [])]
    try:
        write_json(summary_path, {**results, "signatures": signatures,
                                  "interrupted": interrupted, "failed": failed})
    except WriteError as e:
        log(str(e))
        return 1
    log(f"summary written to {summary_path}")
    if interrupted:
        log("interrupted: corpora kept")
        return 130
    return 1 if failed else 0


def print_summary(results):
    """Prints the table and what to do about each failure; True if any."""
    failed = False
    print("\n=== campaign summary", flush=True)
    if results["fuzz"]:
        print(f"{'fuzz target':<28}{'time':>7}{'execs':>12}{'exec/s':>9}{'cov':>6}"
              f"{'ft':>7}{'corpus':>8}{'crashes':>9}")
    strict = ["--strict"] if os.environ.get("FLOWCHECK_FUZZ_STRICT") == "1" else []
    rows = []
    for s in results["fuzz"]:
        print(f"{s['target']:<28}{s['seconds']:>6.0f}s{s.get('execs', 0):>12}"
              f"{s.get('exec_per_s', 0):>9}{s.get('cov', 0):>6}{s.get('ft', 0):>7}"
              f"{s['corpus_files']:>8}{s.get('crash_files', len(s['crashes'])):>9}")
        if s["crashes"]:
            failed = True
        for row in s.get("signatures", []):
            row["reproduce"] = shlex.join(
                [os.path.join(ROOT, "tools", "reproduce.sh"), *strict, row["first"]])
            rows.append((s["target"], row))
        ungrouped = [c for c in s["crashes"] if not s.get("signatures")]
        for c in ungrouped:  # interrupted before its crashes were grouped
            cmd = [os.path.join(ROOT, "tools", "reproduce.sh"), *strict, c]
            print(f"  crash: {c}\n    reproduce: {shlex.join(cmd)}")
        if s["exit_code"] not in (0, None) and not s["crashes"] and not s["interrupted"]:
            failed = True
            print(f"  libFuzzer exited {s['exit_code']} without a crash file; see {s['log']}")
    if rows:
        print("crash signatures (crash files this run, in all runs; only the first file of "
              "each is kept):")
        for target, row in rows:
            print(f"  {row['count']:>5} ({row['total']})  {target}: {row['signature']}\n"
                  f"      first: {row['first']}\n      reproduce: {row['reproduce']}")
    for r in results["stress"]:
        if r["outcome"] == "pass":
            seed = r["report"].get("seed", "?")
            print(f"stress {r['target']}: pass in {r['seconds']:.0f}s (seed {seed}); "
                  f"report {r['json']}")
        elif r["outcome"] == "interrupted":
            print(f"stress {r['target']}: interrupted after {r['seconds']:.0f}s, no verdict; "
                  f"log {r['log']}")
        else:
            failed = True
            print(f"stress {r['target']}: FAIL (exit {r['exit_code']}) after "
                  f"{r['seconds']:.0f}s: {r['failure']}")
            if r["rerun"]:
                print(f"  rerun: {r['rerun']}")
            print(f"  log: {r['log']}" + (f"\n  report: {r['json']}" if r["json"] else ""))
    return failed


if __name__ == "__main__":
    sys.exit(main())
