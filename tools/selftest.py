#!/usr/bin/env python3
"""flowcheck's self-test: does each layer catch the bugs it is meant to catch?

  tools/selftest.sh [--only=ID,...] [--budget=SECONDS] [--json=PATH] [--keep]
  tools/selftest.sh --check        # every mutant still applies (fast; in tools/test.sh)
  tools/selftest.sh --list

The catalog is selftest/mutants/*.patch: one injected bug per file, a small
unified diff against the clean tree (`git diff` output) preceded by a header
of "Key: value" lines and a blank line (patch and git apply skip it):

    Id: reserve-bound-off-by-one
    Title: kern_reserve_flow's bound check lets ffz return 32
    Layer: oracle                 # the layer meant to catch it (see LAYERS)
    Detectors: fuzz:reserve_fuzz, unit    # tried in this order
    Budget: 60                    # optional: seconds per fuzz/stress detector
    Expect: \[invariant F1\]      # optional: a regex the intended layer's
                                  # output must match (which rule, which id)
    Also: asan                    # optional: other layers whose report also
                                  # counts (a memory-unsafe bug: which check
                                  # speaks first depends on the input)

    diff --git a/core/tid_rdma_flow.cc b/core/tid_rdma_flow.cc
    ... For every entry the runner copies the tracked tree into a
scratch directory (the working tree is never touched, so an interrupt cannot
leave it changed), applies the patch, and runs the entry's detectors in order,
cheapest first, each with a time budget. A detector's failure output is
classified into the layer that spoke (oracle, invariant, lockcheck, tsan, asan,
compile, unit, watchdog). The runner records the first detector that caught
the bug and how long it took, and keeps going until the intended layer has
caught it too. It prints a table, writes JSON, and exits nonzero if any bug
survives or is caught only by layers other than the intended one.

Detectors:
  compile        bazel build of the mutated packages (default config)
  unit           bazel test of core/ and lockcheck/ unit tests (default config)
  replay         bazel test //fuzz/... (committed corpora and regressions)
  fuzz:NAME      the libFuzzer target NAME, --config=fuzz, fixed seed, from
                 the committed corpus, stops at the first crash
  stress         //stress:stress_main under --config=tsan with a fixed seed
  sched:STRATEGY the same binary under the controlled scheduler (random, pct,
                 dfs; tools/selftest_sched.py); a catch must replay its
                 schedule file 10/10 with the same trace hash

  tools/selftest.sh --figures [--only=ID,...]   # the concurrency mutants
                 (Detectors has `stress`): every one of stress, sched:random,
                 sched:pct, sched:dfs, and the table of their times to detect
"""

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowcheck_tools import ROOT, bazel, libfuzzer, markers, process  # noqa: E402
from flowcheck_tools.atomic import WriteError, write_json  # noqa: E402
import selftest_sched  # noqa: E402

MUTANTS = os.path.join(ROOT, "selftest", "mutants")
LAYERS = ("compile", "unit", "oracle", "invariant", "lockcheck", "tsan", "asan", "watchdog")


def log(msg):
    print(f"[selftest] {msg}", flush=True)


def classify(output):
    """The layer that spoke (flowcheck_tools.markers decides), or "unclassified"."""
    m = markers.find(output)
    return m.layer if m else "unclassified"


def signature(output):
    """What exactly spoke, e.g. "lockcheck lock-order-inversion", "invariant F1"."""
    m = markers.find(output)
    return m.signature if m else "unclassified"


def parse_header(path):
    """The "Key: value" lines before the first blank line of a mutant patch."""
    meta = {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                break
            key, sep, value = line.partition(":")
            if not sep:
                sys.exit(f"selftest: {path}: header line without ':': {line.rstrip()}")
            # "value   # comment": a comment needs two spaces before the '#'.
            meta[key.strip().lower()] = re.split(r"\s{2,}#", value, 1)[0].strip()
    return meta


def load_catalog():
    entries = []
    ids = set()
    for name in sorted(os.listdir(MUTANTS)) if os.path.isdir(MUTANTS) else []:
        if not name.endswith(".patch"):
            continue
        meta = parse_header(os.path.join(MUTANTS, name))
        for key in ("id", "title", "layer", "detectors"):
            if not meta.get(key):
                sys.exit(f"selftest: {name}: header lacks '{key.capitalize()}:'")
        e = {"id": meta["id"], "title": meta["title"], "patch": name, "layer": meta["layer"],
             "detectors": [d.strip() for d in meta["detectors"].split(",") if d.strip()]}
        if meta.get("budget"):
            e["budget"] = int(meta["budget"])
        if meta.get("expect"):
            e["expect"] = meta["expect"]
        e["also"] = [x.strip() for x in meta.get("also", "").split(",") if x.strip()]
        for x in e["also"]:
            if x not in LAYERS or x == e["layer"]:
                sys.exit(f"selftest: {name}: 'Also: {x}' is not another layer")
        if e["id"] in ids:
            sys.exit(f"selftest: duplicate id {e['id']} ({name})")
        if e["layer"] not in LAYERS:
            sys.exit(f"selftest: {name}: unknown layer {e['layer']} (one of {', '.join(LAYERS)})")
        ids.add(e["id"])
        entries.append(e)
    return entries


def tree_state():
    """Fingerprint of the working tree: status plus the content of every change."""
    status = subprocess.run(["git", "status", "--porcelain=v1", "-z"], cwd=ROOT,
                            stdout=subprocess.PIPE, check=True).stdout
    diff = subprocess.run(["git", "diff", "HEAD", "--binary"], cwd=ROOT,
                          stdout=subprocess.PIPE, check=True).stdout
    return status + b"\0" + diff


def check_patches(entries):
    """Every patch applies cleanly to the current tree (read-only check)."""
    bad = 0
    for e in entries:
        path = os.path.join(MUTANTS, e["patch"])
        r = subprocess.run(["git", "apply", "--check", path], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            bad += 1
            print(f"selftest: {e['id']}: {e['patch']} no longer applies:\n{r.stdout}")
    print(f"selftest: {len(entries) - bad}/{len(entries)} mutant patches apply")
    return 1 if bad else 0


class Scratch:
    """A copy of the tracked tree in which mutants are applied and reverted."""

    def __init__(self, keep):
        self.dir = tempfile.mkdtemp(prefix="flowcheck-selftest-")
        self.keep = keep
        files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                               stdout=subprocess.PIPE).stdout.split(b"\0")
        for f in files:
            if not f:
                continue
            rel = f.decode()
            src, dst = os.path.join(ROOT, rel), os.path.join(self.dir, rel)
            if not os.path.exists(src):
                continue  # deleted but not committed
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)
        # Abseil's unpacked source and the host bazelrc are git-ignored.
        os.makedirs(os.path.join(self.dir, "third_party"), exist_ok=True)
        os.symlink(os.path.join(ROOT, "third_party", "src"),
                   os.path.join(self.dir, "third_party", "src"))
        host_rc = os.path.join(ROOT, ".bazelrc.host")
        if os.path.exists(host_rc):
            shutil.copy2(host_rc, os.path.join(self.dir, ".bazelrc.host"))

    def patch(self, patch_path, reverse=False):
        cmd = ["patch", "-p1", "-s", "--no-backup-if-mismatch", "-i", patch_path]
        if reverse:
            cmd.insert(1, "-R")
        r = subprocess.run(cmd, cwd=self.dir, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"patch {'-R ' if reverse else ''}{patch_path} failed:\n{r.stdout}")

    def close(self):
        bazel.shutdown(cwd=self.dir)
        if self.keep:
            log(f"scratch tree kept: {self.dir}")
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


run_cmd = process.run_in_group  # (cmd, cwd, timeout) -> (code, output, seconds, timed_out)


def run_detector(name, scratch, budget):
    """Returns dict(fired, layer, seconds, build_seconds, excerpt)."""
    build_s = 0.0
    if name == "compile":
        code, out, secs, _ = run_cmd(bazel.argv("build", "//core/...", "//lockcheck/..."),
                                     scratch, max(budget, 600))
        return finish(code != 0, out, secs, 0.0)
    if name == "unit":
        code, out, secs, _ = run_cmd(
            bazel.argv("test", "--test_output=errors", "//core/...", "//lockcheck/..."),
            scratch, max(budget, 600))
        return finish(code != 0, out, secs, 0.0)
    if name == "replay":
        code, out, secs, _ = run_cmd(bazel.argv("test", "--test_output=errors", "//fuzz/..."),
                                     scratch, max(budget, 600))
        return finish(code != 0, out, secs, 0.0)
    if name.startswith("fuzz:"):
        target = name.split(":", 1)[1]
        code, out, build_s, _ = run_cmd(
            bazel.argv("build", f"//fuzz:{target}_fuzzer", config="fuzz"), scratch, 900)
        if code != 0:
            return finish(True, out, build_s, 0.0, build_failed=True)
        binary = bazel.binary(f"//fuzz:{target}_fuzzer", "fuzz", cwd=scratch)
        work = tempfile.mkdtemp(prefix="selftest-fuzz-", dir=scratch)
        seeds = [d for d in (os.path.join(scratch, "fuzz", "corpus", target),)
                 if os.path.isdir(d) and not FUZZ_FROM_SCRATCH]
        cmd = libfuzzer.command(binary, os.path.join(scratch, "fuzz"), target, [work, *seeds],
                                seed=1, seconds=budget, artifact_prefix=work)
        code, out, secs, _ = run_cmd(cmd, scratch, budget + 60)
        return finish(code != 0, out, secs, build_s)
    if name == "stress":
        code, out, build_s, _ = run_cmd(
            bazel.argv("build", "//stress:stress_main", config="tsan"), scratch, 900)
        if code != 0:
            return finish(True, out, build_s, 0.0, build_failed=True)
        binary = bazel.binary("//stress:stress_main", "tsan", cwd=scratch)
        code, out, secs, _ = run_cmd([binary, "--seed=1", f"--seconds={budget}"],
                                     scratch, budget + 120)
        return finish(code != 0, out, secs, build_s)
    if name.startswith("sched:"):
        strategy = name.split(":", 1)[1]
        code, out, build_s, _ = run_cmd(
            bazel.argv("build", "//stress:stress_main", config="tsan"), scratch, 900)
        if code != 0:
            return finish(True, out, build_s, 0.0, build_failed=True)
        binary = bazel.binary("//stress:stress_main", "tsan", cwd=scratch)
        work = tempfile.mkdtemp(prefix="selftest-sched-", dir=scratch)
        cmd = selftest_sched.command(binary, strategy, budget, work)
        code, out, secs, _ = run_cmd(cmd, scratch, budget + 120)
        r = finish(code != 0, out, secs, build_s)
        r["detector"] = name
        r = selftest_sched.annotate(r, out, code != 0, run_cmd, binary, scratch)
        return selftest_sched.consequence(r, cmd, run_cmd, binary, scratch, finish)
    raise ValueError(f"unknown detector {name}")


# --from-scratch: fuzz detectors start from an empty corpus (the committed
# seeds may already walk into a mutant's code path; this shows the search).
FUZZ_FROM_SCRATCH = False


def finish(fired, out, secs, build_s, build_failed=False):
    marker = markers.find(out) if fired else None
    layer = (marker.layer if marker else "unclassified") if fired else None
    if build_failed and layer != "compile":
        layer = "build-error"  # the mutant broke the build for another reason
    excerpt = ""
    if fired:
        lines = [l for l in out.splitlines() if l.strip()]
        excerpt = (marker.line if marker else (lines[-3:] or [""])[0])[:160]
    return {"fired": fired, "layer": layer, "seconds": round(secs, 2),
            "build_seconds": round(build_s, 1), "excerpt": excerpt,
            "signature": (marker.signature if marker else "unclassified") if fired else None,
            # Kept only until run_entry has matched the Expect: pattern.
            "_output": out if fired else ""}


def warm_up(entries, scratch):
    """Builds what the detectors need on the clean scratch tree, so a mutant's
    time to detect counts its own incremental build and run, not a cold start."""
    dets = {d for e in entries for d in e["detectors"]}
    steps = [bazel.argv("build", "//core/...", "//lockcheck/...")]
    if "unit" in dets:
        steps.append(bazel.argv("build", "--build_tests_only", "//core/...", "//lockcheck/..."))
    if "replay" in dets:
        steps.append(bazel.argv("build", "//fuzz/..."))
    fuzzers = sorted(f"//fuzz:{d.split(':', 1)[1]}_fuzzer" for d in dets if d.startswith("fuzz:"))
    if fuzzers:
        steps.append(bazel.argv("build", *fuzzers, config="fuzz"))
    if "stress" in dets or any(d.startswith("sched:") for d in dets):
        steps.append(bazel.argv("build", "//stress:stress_main", config="tsan"))
    for cmd in steps:
        log("warm-up: " + " ".join(cmd[1:]))
        code, out, _, _ = run_cmd(cmd, scratch.dir, 1800)
        if code != 0:
            raise RuntimeError("the CLEAN tree does not build:\n" + out[-3000:])


def run_entry(entry, scratch, budget, detectors=None):
    """Runs entry's detectors until its intended layer catches it; with
    detectors (--figures), runs every one of them for its figure."""
    patch = os.path.join(MUTANTS, entry["patch"])
    scratch.patch(patch)
    result = {"id": entry["id"], "title": entry["title"], "intended": entry["layer"],
              "runs": [], "first": None, "intended_caught": False}
    try:
        for det in detectors or entry["detectors"]:
            r = run_detector(det, scratch.dir, entry.get("budget", budget))
            r["detector"] = det
            result["runs"].append(r)
            if detectors:
                log(f"{entry['id']}: {det}: " + selftest_sched.cell(r))
            if r["fired"] and r["layer"] == "build-error":
                result["error"] = f"{det}: the mutant does not build: {r['excerpt']}"
                break
            output = r.pop("_output")
            if r.get("replay_failed"):
                continue  # a catch whose schedule does not replay is not one
            if r["fired"] and result["first"] is None:
                result["first"] = r
            if not r["fired"] or result["intended_caught"]:
                continue
            if r["layer"] in entry.get("also", []):
                result["caught_by_also"] = r["layer"]
            elif r["layer"] != entry["layer"]:
                continue
            else:
                # The intended layer spoke; with Expect:, it must also have
                # said the expected thing (e.g. the lockcheck rule).
                expect = entry.get("expect")
                if expect and not re.search(expect, output):
                    r["expect_missed"] = expect
                    continue
            result["intended_caught"] = True
            result["intended_run"] = r
            if not detectors:
                break
    finally:
        scratch.patch(patch, reverse=True)
    return result


def print_table(results):
    print("\n| id | bug | intended layer | caught first by | after | intended caught |")
    print("|---|---|---|---|---|---|")
    for r in results:
        f = r["first"]
        first = f"{f['detector']}: {f['signature']}" if f else "SURVIVED"
        after = f"{f['seconds']:.1f} s" if f else "-"
        missed = [x["expect_missed"] for x in r["runs"] if x.get("expect_missed")]
        ok = (f"yes ({r['caught_by_also']}, also accepted)" if r.get("caught_by_also")
              else "yes" if r["intended_caught"] else "ERROR" if r.get("error")
              else f"NO (did not match Expect: {missed[0]})" if missed else "NO")
        print(f"| {r['id']} | {r['title']} | {r['intended']} | {first} | {after} | {ok} |")
    times = [r["first"]["seconds"] for r in results if r["first"]]
    if times:
        print(f"\ncaught {len(times)}/{len(results)}; time to detect: "
              f"median {statistics.median(times):.1f} s, max {max(times):.1f} s")


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `--list | head` is fine
    # SIGTERM (e.g. a CI timeout) cleans up like Ctrl-C does.
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--check", action="store_true", help="only check that every patch applies")
    p.add_argument("--list", action="store_true")
    p.add_argument("--only", default="", help="comma-separated catalog ids")
    p.add_argument("--budget", type=int, default=60, help="seconds per fuzz/stress detector")
    p.add_argument("--json", default=os.path.join(ROOT, "out", "selftest.json"))
    p.add_argument("--keep", action="store_true", help="keep the scratch tree")
    p.add_argument("--figures", action="store_true",
                   help="concurrency mutants: every detector of " +
                   ", ".join(selftest_sched.FIGURE_DETECTORS) + ", and their table")
    p.add_argument("--from-scratch", action="store_true",
                   help="fuzz detectors start without the committed seed corpus")
    a = p.parse_args()
    global FUZZ_FROM_SCRATCH
    FUZZ_FROM_SCRATCH = a.from_scratch
    entries = load_catalog()
    if a.check:
        return check_patches(entries)
    if a.list:
        for e in entries:
            print(f"{e['id']:<28} {e['layer']:<10} {e['title']}")
        return 0
    if a.only:
        wanted = a.only.split(",")
        unknown = set(wanted) - {e["id"] for e in entries}
        if unknown:
            p.error(f"unknown id(s): {', '.join(sorted(unknown))}")
        entries = [e for e in entries if e["id"] in wanted]
    figures = list(selftest_sched.FIGURE_DETECTORS) if a.figures else None
    if a.figures:
        entries = [e for e in entries if "stress" in e["detectors"]]
        for e in entries:
            e["detectors"] = figures  # what warm_up builds
    if check_patches(entries):
        return 1
    before = tree_state()
    scratch = Scratch(a.keep)
    results = []
    interrupted = False
    try:
        warm_up(entries, scratch)
        for e in entries:
            log(f"{e['id']}: {e['title']} (intended: {e['layer']})")
            r = run_entry(e, scratch, a.budget, figures)
            f = r["first"]
            log(f"{e['id']}: " + (f"caught first by {f['detector']} ({f['signature']}) after "
                                  f"{f['seconds']:.1f}s: {f['excerpt']}" if f else "SURVIVED"))
            results.append(r)
    except KeyboardInterrupt:
        interrupted = True
        log("interrupted")
    finally:
        scratch.close()
        if tree_state() != before:
            log("ERROR: the working tree changed during the self-test (it must not)")
            return 2
        log("working tree unchanged (verified)")
    print_table(results)
    if a.figures:
        print("\n" + selftest_sched.figures_table(results))
    try:
        os.makedirs(os.path.dirname(a.json), exist_ok=True)
        write_json(a.json, {"results": results, "interrupted": interrupted})
    except (OSError, WriteError) as e:
        log(f"ERROR: {e}")
        return 1
    log(f"JSON written to {a.json}")
    bad = [r["id"] for r in results if not r["intended_caught"]
           or (a.figures and not selftest_sched.controlled_catch(r))]
    if bad:
        log(f"NOT caught by their intended layer: {', '.join(bad)}")
    return 130 if interrupted else (1 if bad else 0)


if __name__ == "__main__":
    sys.exit(main())
