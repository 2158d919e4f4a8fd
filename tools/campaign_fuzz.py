"""One fuzz target's share of a campaign: libFuzzer -fork, then the corpus merge.

tools/campaign.py runs one FuzzRun per target. The live corpus of target T is
OUT/fuzz/T/corpus (a flowcheck_tools.corpus.LiveCorpus: recovered at start-up,
replaced only whole), seeded from the committed fuzz/corpus/T/ and
fuzz/regressions/T/; crashes land in OUT/fuzz/T/crashes/, libFuzzer's output
in OUT/fuzz/T/fuzz.log and merge.log. libFuzzer's scratch files go to a
private TMPDIR that is removed when the run ends, however it ends.
"""

import os
import shutil
import subprocess
import tempfile
import time

from flowcheck_tools import ROOT, bazel, libfuzzer, process
from flowcheck_tools.corpus import LiveCorpus

PROGRESS_EVERY_S = 10
# libFuzzer's parent ignores SIGINT while its jobs run (system()); the jobs
# do not, and the parent exits once one of them stops. Ask once a second.
SIGINT_EVERY_S = 1


def log(msg):
    print(f"[campaign] {msg}", flush=True)


def target_name(label):
    """//fuzz:pure_fuzz_fuzzer -> pure_fuzz."""
    return bazel.split_label(label)[1][: -len("_fuzzer")]


class FuzzRun:
    """One libFuzzer -fork campaign for one target, with live progress."""

    def __init__(self, label, bin_root, out_dir, jobs, seconds, stop_grace_s):
        pkg, binary = bazel.split_label(label)
        self.pkg_dir = os.path.join(ROOT, pkg)
        self.name = target_name(label)
        self.binary = os.path.join(bin_root, pkg, binary)
        self.dir = os.path.join(out_dir, "fuzz", self.name)
        self.corpus = LiveCorpus(os.path.join(self.dir, "corpus"))
        self.crashes = os.path.join(self.dir, "crashes")
        self.jobs = jobs
        self.seconds = seconds
        self.stop_grace_s = stop_grace_s
        self.status = None  # last parsed libFuzzer status tuple
        self.exit_code = None
        self.interrupted = False
        self.wall = 0.0
        self.new_crashes = []

    def recover(self):
        """Makes the live corpus whole again after a kill (see LiveCorpus)."""
        os.makedirs(self.dir, exist_ok=True)
        done = self.corpus.recover()
        if done:
            log(f"{self.name}: corpus recovered after an interrupted merge: {'; '.join(done)}")

    def seed_dirs(self):
        dirs = []
        for sub in ("corpus", "regressions"):
            d = os.path.join(self.pkg_dir, sub, self.name)
            if os.path.isdir(d):
                dirs.append(d)
        return dirs

    def run(self):
        self.recover()
        os.makedirs(self.crashes, exist_ok=True)
        before = set(os.listdir(self.crashes))
        tmp = tempfile.mkdtemp(prefix=f"flowcheck-campaign-{self.name}-")
        start = time.monotonic()
        try:
            try:
                self._fuzz(tmp, start)
            finally:
                self.wall = time.monotonic() - start  # the fuzzing, not the merge
            if not self.interrupted:
                self._merge(tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            self.new_crashes = sorted(set(os.listdir(self.crashes)) - before)

    def _fuzz(self, tmp, start):
        cmd = libfuzzer.command(self.binary, self.pkg_dir, self.name,
                                [self.corpus.path, *self.seed_dirs()], fork=self.jobs,
                                seconds=self.seconds, artifact_prefix=self.crashes,
                                final_stats=True)
        log(f"{self.name}: fuzzing for {self.seconds}s with {self.jobs} job(s); "
            f"corpus {self.corpus.path} ({self.corpus.count()} files)")
        last_print = start
        with open(os.path.join(self.dir, "fuzz.log"), "w") as logf:
            proc = subprocess.Popen(cmd, cwd=self.dir, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, errors="replace",
                                    start_new_session=True, env=libfuzzer.env_with_tmpdir(tmp))
            try:
                for line in proc.stdout:
                    logf.write(line)
                    m = libfuzzer.STATUS_RE.match(line)
                    if m:
                        self.status = tuple(int(x) for x in m.groups())
                    now = time.monotonic()
                    if self.status and now - last_print >= PROGRESS_EVERY_S:
                        last_print = now
                        self.print_status(now - start)
                self.exit_code = proc.wait()
            except KeyboardInterrupt:
                self.interrupted = True
                self.exit_code = process.stop_group(proc, self.stop_grace_s,
                                                    repeat_s=SIGINT_EVERY_S)
                logf.write(proc.stdout.read())

    def _merge(self, tmp):
        """Minimizes the live corpus and the seeds into a new live corpus."""
        def build(into):
            cmd = libfuzzer.merge_command(self.binary, into, [self.corpus.path, *self.seed_dirs()])
            with open(os.path.join(self.dir, "merge.log"), "w") as logf:
                proc = subprocess.Popen(cmd, cwd=self.dir, stdout=logf, stderr=subprocess.STDOUT,
                                        start_new_session=True,
                                        env=libfuzzer.env_with_tmpdir(tmp))
                try:
                    rc = proc.wait()
                except KeyboardInterrupt:
                    process.stop_group(proc, self.stop_grace_s, repeat_s=SIGINT_EVERY_S)
                    raise
            if rc != 0:
                log(f"{self.name}: corpus merge failed (exit {rc}, "
                    f"{os.path.join(self.dir, 'merge.log')}); kept the unmerged corpus")
            return rc == 0

        try:
            self.corpus.replace(build)
        except KeyboardInterrupt:
            self.interrupted = True  # the live corpus is untouched

    def print_status(self, elapsed):
        execs, cov, ft, corp, eps, _, _, crash, _ = self.status
        log(f"{self.name}: {elapsed:5.0f}s  execs {execs}  exec/s {eps}  cov {cov}  "
            f"ft {ft}  corpus {corp}  crashes {crash}")

    def summary(self):
        s = {"target": self.name, "seconds": round(self.wall, 1),
             "exit_code": self.exit_code, "interrupted": self.interrupted,
             "corpus": self.corpus.path, "corpus_files": self.corpus.count(),
             "log": os.path.join(self.dir, "fuzz.log"),
             "crashes": [os.path.join(self.crashes, c) for c in self.new_crashes]}
        if self.status:
            execs, cov, ft, _, _, _, _, _, secs = self.status
            s.update(execs=execs, exec_per_s=execs // max(secs, 1), cov=cov, ft=ft)
        return s
