#!/usr/bin/env python3
"""flowcheck's bounded fuzz + stress campaign (the README's main job).

Run through tools/campaign.sh, which bootstraps the machine first.

  tools/campaign.sh [--seconds=120] [--jobs=N] [--targets=a,b] [--fuzz-share=0.6]
                    [--out=out] [--no-stress] [--no-fuzz]

Fuzzing: every cc_binary tagged "fuzzer" (made by cc_fuzz_test) is built with
--config=fuzz and run with libFuzzer's -fork=N (all cores) for its share of
the time. The live corpus of target T is out/fuzz/T/corpus/ (git-ignored),
kept across runs and seeded from the committed fuzz/corpus/T/ and
fuzz/regressions/T/; T.dict and T.options next to the BUILD file are used
when present. After each target the live corpus is merged (minimized) into a
fresh directory that replaces the old one only once the merge succeeded, so
an interrupted merge never loses inputs. Crashes land in out/fuzz/T/crashes/.

Stress: every target tagged "stress_campaign" is built with --config=tsan and
run with --seconds=S --json_out=out/stress/NAME.json; it prints its own
progress and, on failure, the exact command that reruns it.

FLOWCHECK_FUZZ_STRICT=1 in the environment makes the targets fail on the
kernel's own hazards too (upstream divergences, docs/fuzz.md); the printed
reproduce commands then carry --strict.

Ctrl-C stops the current run, keeps every corpus, prints the summary and
exits 130. The exit status is 1 if anything crashed or failed, else 0. A
JSON summary goes to out/campaign-summary.json.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import fuzz_target_flags

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STATUS_RE = re.compile(
    r"^#(\d+):\s+cov: (\d+) ft: (\d+) corp: (\d+) exec/s:? (\d+) "
    r"oom/timeout/crash: (\d+)/(\d+)/(\d+) time: (\d+)s")
PROGRESS_EVERY_S = 10


def log(msg):
    print(f"[campaign] {msg}", flush=True)


def bazel(*args, capture=True):
    cmd = ["bazel", *args]
    if capture:
        return subprocess.run(cmd, cwd=ROOT, check=True, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    subprocess.run(cmd, cwd=ROOT, check=True)
    return ""


def query_tagged(tag, kind, unless=None):
    """Targets of `kind` tagged `tag`, minus those also tagged `unless`."""
    expr = f'attr(tags, "\\b{tag}\\b", kind({kind}, //...))'
    if unless:
        expr += f' except attr(tags, "\\b{unless}\\b", //...)'
    out = bazel("query", expr)
    return [l.strip() for l in out.splitlines() if l.strip()]


def label_parts(label):
    pkg, name = label[2:].split(":")
    return pkg, name


def stop_process_group(proc, grace_s=10):
    """SIGINT to proc's process group, then SIGKILL after grace_s; returns its exit code."""
    try:
        os.killpg(proc.pid, signal.SIGINT)
        return proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        return proc.wait()
    except ProcessLookupError:
        return proc.wait()


def count_files(path):
    if not os.path.isdir(path):
        return 0
    return sum(1 for e in os.scandir(path) if e.is_file())


class FuzzRun:
    """One libFuzzer -fork campaign for one target, with live progress."""

    def __init__(self, label, bin_dir, out_dir, jobs, seconds):
        self.pkg, binary = label_parts(label)
        self.name = binary[: -len("_fuzzer")]
        self.binary = os.path.join(bin_dir, self.pkg, binary)
        self.dir = os.path.join(out_dir, "fuzz", self.name)
        self.corpus = os.path.join(self.dir, "corpus")
        self.crashes = os.path.join(self.dir, "crashes")
        self.jobs = jobs
        self.seconds = seconds
        self.status = None  # last parsed libFuzzer status tuple
        self.exit_code = None
        self.interrupted = False
        self.wall = 0.0

    def seed_dirs(self):
        dirs = []
        for sub in ("corpus", "regressions"):
            d = os.path.join(ROOT, self.pkg, sub, self.name)
            if os.path.isdir(d):
                dirs.append(d)
        return dirs

    def run(self):
        os.makedirs(self.corpus, exist_ok=True)
        os.makedirs(self.crashes, exist_ok=True)
        before = set(os.listdir(self.crashes))
        cmd = [self.binary, f"-fork={self.jobs}", f"-max_total_time={self.seconds}",
               f"-artifact_prefix={self.crashes}/", "-print_final_stats=1",
               *fuzz_target_flags.flags(os.path.join(ROOT, self.pkg), self.name), self.corpus, *self.seed_dirs()]
        log(f"{self.name}: fuzzing for {self.seconds}s with {self.jobs} job(s); "
            f"corpus {os.path.relpath(self.corpus, ROOT)} ({count_files(self.corpus)} files)")
        start = time.monotonic()
        last_print = start
        with open(os.path.join(self.dir, "fuzz.log"), "w") as logf:
            # Own process group: an interrupt is forwarded to libFuzzer's
            # fork-mode parent and its jobs together (stop_process_group).
            proc = subprocess.Popen(cmd, cwd=self.dir, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, errors="replace",
                                    start_new_session=True)
            try:
                for line in proc.stdout:
                    logf.write(line)
                    m = STATUS_RE.match(line)
                    if m:
                        self.status = tuple(int(x) for x in m.groups())
                    now = time.monotonic()
                    if self.status and now - last_print >= PROGRESS_EVERY_S:
                        last_print = now
                        self.print_status(now - start)
                self.exit_code = proc.wait()
            except KeyboardInterrupt:
                self.interrupted = True
                self.exit_code = stop_process_group(proc)
        self.wall = time.monotonic() - start
        self.new_crashes = sorted(set(os.listdir(self.crashes)) - before)
        if not self.interrupted:
            self.merge()

    def print_status(self, elapsed):
        execs, cov, ft, corp, eps, _, _, crash, _ = self.status
        log(f"{self.name}: {elapsed:5.0f}s  execs {execs}  exec/s {eps}  cov {cov}  "
            f"ft {ft}  corpus {corp}  crashes {crash}")

    def merge(self):
        """Minimizes the live corpus; replaces it only if the merge succeeded."""
        merged = self.corpus + ".merging"
        shutil.rmtree(merged, ignore_errors=True)
        os.makedirs(merged)
        try:
            r = subprocess.run([self.binary, "-merge=1", merged, self.corpus, *self.seed_dirs()],
                               cwd=self.dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except KeyboardInterrupt:
            # The unmerged corpus is untouched; drop the half-made merge.
            shutil.rmtree(merged, ignore_errors=True)
            self.interrupted = True
            return
        if r.returncode != 0 or count_files(merged) == 0:
            shutil.rmtree(merged, ignore_errors=True)
            log(f"{self.name}: corpus merge failed (exit {r.returncode}); kept the unmerged corpus")
            return
        old = self.corpus + ".old"
        shutil.rmtree(old, ignore_errors=True)
        os.rename(self.corpus, old)
        os.rename(merged, self.corpus)
        shutil.rmtree(old, ignore_errors=True)

    def summary(self):
        s = {"target": self.name, "seconds": round(self.wall, 1),
             "exit_code": self.exit_code, "interrupted": self.interrupted,
             "corpus_files": count_files(self.corpus),
             "crashes": [os.path.join(self.crashes, c) for c in self.new_crashes]}
        if self.status:
            execs, cov, ft, _, _, _, _, _, secs = self.status
            s.update(execs=execs, exec_per_s=execs // max(secs, 1), cov=cov, ft=ft)
        return s


def run_stress(label, bin_dir, out_dir, seconds):
    pkg, name = label_parts(label)
    os.makedirs(os.path.join(out_dir, "stress"), exist_ok=True)
    json_out = os.path.join(out_dir, "stress", name + ".json")
    cmd = [os.path.join(bin_dir, pkg, name), f"--seconds={seconds}", f"--json_out={json_out}"]
    log(f"{name}: stress under TSan for {seconds}s")
    start = time.monotonic()
    interrupted = False
    proc = subprocess.Popen(cmd, cwd=ROOT, start_new_session=True)
    try:
        rc = proc.wait()
    except KeyboardInterrupt:
        interrupted = True
        rc = stop_process_group(proc)
    result = {"target": name, "exit_code": rc, "interrupted": interrupted,
              "seconds": round(time.monotonic() - start, 1), "json": json_out}
    if os.path.isfile(json_out):
        with open(json_out) as f:
            try:
                result["report"] = json.load(f)
            except ValueError:
                result["report"] = "unreadable"
    return result


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def main():
    # Explicit handlers: a parent shell may have started us with SIGINT
    # ignored, and SIGTERM (a CI timeout) must keep the corpora too.
    signal.signal(signal.SIGINT, _raise_interrupt)
    signal.signal(signal.SIGTERM, _raise_interrupt)
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=int, default=120, help="total fuzz + stress time")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--targets", default="", help="comma-separated fuzz target names")
    p.add_argument("--fuzz-share", type=float, default=0.6)
    p.add_argument("--out", default=os.path.join(ROOT, "out"))
    p.add_argument("--no-fuzz", action="store_true")
    p.add_argument("--no-stress", action="store_true")
    a = p.parse_args()
    if a.seconds <= 0 or a.jobs <= 0 or not 0 <= a.fuzz_share <= 1:
        p.error("--seconds and --jobs must be positive, --fuzz-share in [0, 1]")
    out = os.path.abspath(a.out)

    # "no_campaign": targets that exist for other tools (//fuzz:empty_fuzz is
    # tools/fuzz_benchmark.py's yardstick).
    fuzzers = [] if a.no_fuzz else query_tagged("fuzzer", "cc_binary", unless="no_campaign")
    if a.targets:
        wanted = set(a.targets.split(","))
        fuzzers = [f for f in fuzzers if label_parts(f)[1][: -len("_fuzzer")] in wanted]
        missing = wanted - {label_parts(f)[1][: -len("_fuzzer")] for f in fuzzers}
        if missing:
            p.error(f"unknown fuzz target(s): {', '.join(sorted(missing))}")
    stressors = [] if a.no_stress else query_tagged("stress_campaign", "cc_binary")
    if not fuzzers and not stressors:
        log("nothing to run: no fuzz targets or stress drivers selected")
        return 0

    fuzz_s = a.seconds if not stressors else int(a.seconds * a.fuzz_share)
    stress_s = a.seconds - fuzz_s if fuzzers else a.seconds
    results = {"fuzz": [], "stress": []}
    interrupted = False
    try:
        if fuzzers:
            log(f"building {len(fuzzers)} fuzz target(s) with --config=fuzz")
            bazel("build", "--config=fuzz", *fuzzers, capture=False)
            fuzz_bin = bazel("info", "--config=fuzz", "bazel-bin").strip()
        if stressors:
            log(f"building {len(stressors)} stress driver(s) with --config=tsan")
            bazel("build", "--config=tsan", *stressors, capture=False)
            tsan_bin = bazel("info", "--config=tsan", "bazel-bin").strip()
    except KeyboardInterrupt:
        log("interrupted during the build; nothing ran")
        return 130
    except subprocess.CalledProcessError as e:
        log(f"build failed: {' '.join(e.cmd)}")
        return 1

    per_target = max(1, fuzz_s // max(1, len(fuzzers)))
    for label in fuzzers:
        run = FuzzRun(label, fuzz_bin, out, a.jobs, per_target)
        run.run()
        results["fuzz"].append(run.summary())
        if run.interrupted:
            interrupted = True
            break
    if not interrupted:
        per_stress = max(1, stress_s // max(1, len(stressors)))
        for label in stressors:
            try:
                r = run_stress(label, tsan_bin, out, per_stress)
            except KeyboardInterrupt:
                interrupted = True
                break
            results["stress"].append(r)
            if r["interrupted"]:
                interrupted = True
                break

    failed = print_summary(results)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "campaign-summary.json"), "w") as f:
        json.dump({**results, "interrupted": interrupted, "failed": failed}, f, indent=2)
    log(f"summary written to {os.path.relpath(os.path.join(out, 'campaign-summary.json'), ROOT)}")
    if interrupted:
        log("interrupted: corpora kept")
        return 130
    return 1 if failed else 0


def print_summary(results):
    failed = False
    print("\n=== campaign summary", flush=True)
    if results["fuzz"]:
        print(f"{'fuzz target':<28}{'time':>7}{'execs':>12}{'exec/s':>9}{'cov':>6}"
              f"{'ft':>7}{'corpus':>8}{'crashes':>9}")
    for s in results["fuzz"]:
        print(f"{s['target']:<28}{s['seconds']:>6.0f}s{s.get('execs', 0):>12}"
              f"{s.get('exec_per_s', 0):>9}{s.get('cov', 0):>6}{s.get('ft', 0):>7}"
              f"{s['corpus_files']:>8}{len(s['crashes']):>9}")
        for c in s["crashes"]:
            failed = True
            strict = " --strict" if os.environ.get("FLOWCHECK_FUZZ_STRICT") == "1" else ""
            print(f"  crash: {os.path.relpath(c, ROOT)}\n"
                  f"    reproduce: tools/reproduce.sh{strict} {os.path.relpath(c, ROOT)}")
        if s["exit_code"] not in (0, None) and not s["crashes"] and not s["interrupted"]:
            failed = True
            print(f"  libFuzzer exited {s['exit_code']} without a crash file; "
                  f"see {os.path.relpath(os.path.join(ROOT, 'out'), ROOT)}/fuzz/{s['target']}/fuzz.log")
    for r in results["stress"]:
        ok = r["exit_code"] == 0
        failed |= not ok and not r["interrupted"]
        print(f"stress {r['target']}: {'ok' if ok else 'FAILED (exit %d)' % r['exit_code']} "
              f"in {r['seconds']:.0f}s; report {os.path.relpath(r['json'], ROOT)}")
    return failed


if __name__ == "__main__":
    sys.exit(main())
