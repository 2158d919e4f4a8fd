"""One fuzz target's share of a campaign: libFuzzer -fork, then the corpus merge.

tools/campaign.py runs one FuzzRun per target. The kept corpus of target T is
OUT/fuzz/T/corpus (a flowcheck_tools.corpus.LiveCorpus: recovered at start-up,
replaced only whole). libFuzzer writes its new finds into OUT/fuzz/T/new, never
into the kept corpus; it reads the kept corpus (unless --no-resume), the
committed fuzz/corpus/T/ and fuzz/regressions/T/ and the --seed_from
directories. merge() then adds to the kept corpus (libFuzzer -merge=1 into a
hard-linked copy of it, swapped in whole) every input of new/, the seeds and
--seed_from that adds coverage, and only then deletes new/: the kept corpus
only grows, and a kill at any moment loses nothing. minimize() writes a
minimized copy beside it, OUT/fuzz/T/corpus.min, replaced the same way.
Crashes land in OUT/fuzz/T/crashes/; after the run each new one is replayed
and grouped by its signature (flowcheck_tools.crashes): the first file of a
signature stays, the others are counted in OUT/fuzz/T/signatures.json and
deleted. libFuzzer's output goes to OUT/fuzz/T/fuzz.log,
merge.log and minimize.log. libFuzzer's scratch files go to a private TMPDIR
that is removed when the run ends, however it ends.
"""

import os
import shutil
import subprocess
import tempfile
import time

from flowcheck_tools import ROOT, bazel, libfuzzer, process
from flowcheck_tools.corpus import LiveCorpus, link_files
from flowcheck_tools.crashes import CrashIndex, replay

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

    def __init__(self, label, bin_root, out_dir, jobs, seconds, stop_grace_s, seed_from=(),
                 resume=True):
        pkg, binary = bazel.split_label(label)
        self.pkg_dir = os.path.join(ROOT, pkg)
        self.name = target_name(label)
        self.binary = os.path.join(bin_root, pkg, binary)
        self.dir = os.path.join(out_dir, "fuzz", self.name)
        self.corpus = LiveCorpus(os.path.join(self.dir, "corpus"))
        self.minimized = LiveCorpus(os.path.join(self.dir, "corpus.min"))
        self.new = os.path.join(self.dir, "new")  # libFuzzer's new finds, until merged
        self.seed_from = list(seed_from)  # this target's --seed_from directories
        self.resume = resume
        self.merged = None  # inputs the last merge added to the kept corpus
        self.crashes = os.path.join(self.dir, "crashes")
        self.jobs = jobs
        self.seconds = seconds
        self.stop_grace_s = stop_grace_s
        self.status = None  # last parsed libFuzzer status tuple
        self.exit_code = None
        self.interrupted = False
        self.wall = 0.0
        self.new_crashes = []  # this run's crash files, before grouping
        self.strict = os.environ.get("FLOWCHECK_FUZZ_STRICT") == "1"
        self.index = CrashIndex(self.crashes, os.path.join(self.dir, "signatures.json"))
        self.rows = []  # one per signature this run hit (CrashIndex.row)

    def recover(self):
        """Makes the live corpus whole again after a kill (see LiveCorpus)."""
        os.makedirs(self.dir, exist_ok=True)
        done = self.corpus.recover()
        if done:
            log(f"{self.name}: corpus recovered after an interrupted merge: {'; '.join(done)}")
        if os.path.isdir(self.minimized.path) or any(
                os.path.lexists(self.minimized.path + ext)
                for ext in (".building", ".ready", ".old")):
            done = self.minimized.recover()
            if done:
                log(f"{self.name}: minimized corpus recovered: {'; '.join(done)}")

    def seed_dirs(self):
        """The committed seeds and regressions, then the --seed_from directories."""
        dirs = []
        for sub in ("corpus", "regressions"):
            d = os.path.join(self.pkg_dir, sub, self.name)
            if os.path.isdir(d):
                dirs.append(d)
        return dirs + self.seed_from

    def run(self):
        self.recover()
        os.makedirs(self.crashes, exist_ok=True)
        before = self._crash_files()
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
            # New names, and kept files written again (found again: libFuzzer
            # names a crash file by its content).
            self.new_crashes = sorted(n for n, t in self._crash_files().items()
                                      if before.get(n) != t)
        if not self.interrupted:
            self._group_crashes()

    def _crash_files(self):
        """{name: mtime_ns} of the crash directory."""
        with os.scandir(self.crashes) as entries:
            return {e.name: e.stat().st_mtime_ns for e in entries if e.is_file()}

    def _group_crashes(self):
        """Replays every crash file not grouped yet (this run's, and any a
        kill left) and keeps one per signature; self.rows: this run's."""
        pending = self.index.pending()
        if pending:
            log(f"{self.name}: replaying {len(pending)} crash file(s) for their signatures")
        try:
            for path in pending:
                sig = self.index.signature_of(os.path.basename(path))
                if sig is None:
                    sig = replay(self.binary, self.pkg_dir, self.name, path, self.strict)[0]
                self.index.add(path, sig or "no failure on replay")
        except KeyboardInterrupt:
            self.interrupted = True  # the rest are grouped by the next run
        counts = {}
        for name in self.new_crashes:
            sig = self.index.signature_of(name)
            if sig is not None:
                counts[sig] = counts.get(sig, 0) + 1
        self.rows = [self.index.row(sig, n) for sig, n in
                     sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]

    def merge(self):
        """--merge without fuzzing: new/ and the seeds into the kept corpus."""
        self.recover()
        tmp = tempfile.mkdtemp(prefix=f"flowcheck-merge-{self.name}-")
        try:
            self._merge(tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def minimize(self):
        """--minimize: the kept corpus minimized (-merge=1 into an empty
        directory) as OUT/fuzz/T/corpus.min, replaced whole; the kept corpus
        is only read."""
        self.recover()
        if not os.path.isdir(self.minimized.path):
            os.mkdir(self.minimized.path)
        tmp = tempfile.mkdtemp(prefix=f"flowcheck-minimize-{self.name}-")
        try:
            ok = self.minimized.replace(
                lambda into: self._libfuzzer_merge(into, [self.corpus.path], tmp, "minimize"))
            log(f"{self.name}: minimized corpus {self.minimized.path}: "
                f"{self.minimized.count()} of {self.corpus.count()} inputs"
                + ("" if ok else " (unchanged: the minimization failed or found nothing)"))
        except KeyboardInterrupt:
            self.interrupted = True
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _fuzz(self, tmp, start):
        os.makedirs(self.new, exist_ok=True)
        read = [self.corpus.path] if self.resume else []
        cmd = libfuzzer.command(self.binary, self.pkg_dir, self.name,
                                [self.new, *read, *self.seed_dirs()], fork=self.jobs,
                                seconds=self.seconds, artifact_prefix=self.crashes,
                                final_stats=True, ignore_crashes=True)
        log(f"{self.name}: fuzzing for {self.seconds}s with {self.jobs} job(s); "
            f"corpus {self.corpus.path} ({self.corpus.count()} files"
            f"{'' if self.resume else ', not read: --no-resume'})")
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

    def _libfuzzer_merge(self, into, from_dirs, tmp, what):
        """libFuzzer -merge=1 INTO FROM...: adds to `into` the inputs of
        from_dirs that add coverage (crashing ones are skipped). True on
        success; a KeyboardInterrupt stops it and propagates."""
        # Crash files the merge writes (an input that crashes is skipped) go
        # to the private tmp, not the campaign's crashes/: they are no finds.
        # Without FLOWCHECK_FUZZ_STRICT: an input reaching a kernel hazard is
        # coverage worth keeping, strict or not.
        cmd = libfuzzer.merge_command(self.binary, into, from_dirs, artifact_prefix=tmp)
        env = libfuzzer.env_with_tmpdir(tmp)
        env.pop("FLOWCHECK_FUZZ_STRICT", None)
        with open(os.path.join(self.dir, what + ".log"), "w") as logf:
            proc = subprocess.Popen(cmd, cwd=tmp, stdout=logf, stderr=subprocess.STDOUT,
                                    start_new_session=True, preexec_fn=process.die_with_parent,
                                    env=env)
            try:
                rc = proc.wait()
            except KeyboardInterrupt:
                process.stop_group(proc, self.stop_grace_s, repeat_s=SIGINT_EVERY_S)
                raise
        if rc != 0:
            log(f"{self.name}: corpus {what} failed (exit {rc}, "
                f"{os.path.join(self.dir, what + '.log')}); kept the corpus as it was")
        return rc == 0

    def _merge(self, tmp):
        """Adds to the kept corpus what new/, the seeds and --seed_from add to
        its coverage: libFuzzer -merge=1 into a hard-linked copy of it, which
        replaces it whole. Then new/ is deleted (merged or redundant)."""
        sources = [d for d in (self.new, *self.seed_dirs()) if os.path.isdir(d)]
        if not sources:
            return
        before = self.corpus.count()

        def build(into):
            link_files(self.corpus.path, into)  # the kept corpus stays as it is
            return self._libfuzzer_merge(into, sources, tmp, "merge")

        try:
            if self.corpus.replace(build):
                shutil.rmtree(self.new, ignore_errors=True)
                self.merged = self.corpus.count() - before
                log(f"{self.name}: merged {self.merged} new input(s) into {self.corpus.path} "
                    f"({self.corpus.count()} inputs)")
        except KeyboardInterrupt:
            self.interrupted = True  # the kept corpus is untouched

    def print_status(self, elapsed):
        execs, cov, ft, corp, eps, _, _, crash, _ = self.status
        log(f"{self.name}: {elapsed:5.0f}s  execs {execs}  exec/s {eps}  cov {cov}  "
            f"ft {ft}  corpus {corp}  crashes {crash}")

    def summary(self):
        s = {"target": self.name, "seconds": round(self.wall, 1),
             "exit_code": self.exit_code, "interrupted": self.interrupted,
             "corpus": self.corpus.path, "corpus_files": self.corpus.count(),
             "merged_inputs": self.merged,
             "log": os.path.join(self.dir, "fuzz.log"),
             "crash_files": len(self.new_crashes),
             "crashes": [r["first"] for r in self.rows] if self.rows else
             [os.path.join(self.crashes, c) for c in self.new_crashes
              if os.path.exists(os.path.join(self.crashes, c))],
             "signatures": self.rows}
        if self.status:
            execs, cov, ft, _, _, _, _, _, secs = self.status
            s.update(execs=execs, exec_per_s=execs // max(secs, 1), cov=cov, ft=ft)
        return s
