"""A kill at any moment of a corpus merge never loses the live corpus.

The merge is flowcheck_tools.corpus.LiveCorpus.replace(), run in a forked
child that is SIGKILLed before each of its filesystem changes in turn, and
10 times at random moments while the stand-in libFuzzer merges
(tools/testdata/fake_fuzzer.py -merge=1: the distinct inputs, minus the
"redundant" ones). After every kill, recover() (what the campaign runs at
start-up) must leave exactly one corpus directory holding either the whole
corpus from before the merge or the whole merge result: never missing, never
a part of either.
"""

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

TOOLS = os.path.dirname(os.path.abspath(__file__))
FAKE_FUZZER = os.path.join(TOOLS, "testdata", "fake_fuzzer.py")
sys.path.insert(0, TOOLS)
from flowcheck_tools import corpus as corpus_module  # noqa: E402
from flowcheck_tools.corpus import LiveCorpus  # noqa: E402

FS_CHANGES = ("mkdir", "rename", "unlink", "rmdir")
# Whether this machine can swap two directories in one step: then the live
# corpus must exist at every moment, not only after recover().
EXCHANGE_WORKS = None


class KillAt:
    """Counts the filesystem changes (os.mkdir, rename, unlink, rmdir: all
    replace() makes, shutil.rmtree included) made inside the block; with
    kill_at=N, the process SIGKILLs itself just before the N-th."""

    def __init__(self, kill_at=0):
        self.kill_at, self.steps, self.saved = kill_at, 0, {}

    def __enter__(self):
        for name in FS_CHANGES:
            self.saved[name] = fn = getattr(os, name)
            setattr(os, name, self._counted(fn))
        self.saved_exchange = corpus_module.exchange
        corpus_module.exchange = self._counted(corpus_module.exchange)
        return self

    def __exit__(self, *exc):
        for name, fn in self.saved.items():
            setattr(os, name, fn)
        corpus_module.exchange = self.saved_exchange

    def _counted(self, fn):
        def wrapper(*args, **kw):
            self.steps += 1
            if self.steps == self.kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return fn(*args, **kw)
        return wrapper


def snapshot(directory):
    """{name: bytes} of a directory's files."""
    out = {}
    for name in os.listdir(directory):
        with open(os.path.join(directory, name), "rb") as f:
            out[name] = f.read()
    return out


def exchange_works(top):
    """Can this filesystem exchange two directories (renameat2)?"""
    global EXCHANGE_WORKS
    if EXCHANGE_WORKS is None:
        a, b = os.path.join(top, "xa"), os.path.join(top, "xb")
        os.mkdir(a)
        os.mkdir(b)
        open(os.path.join(a, "in-a"), "w").close()
        EXCHANGE_WORKS = corpus_module.exchange(a, b) and os.listdir(b) == ["in-a"]
        shutil.rmtree(a)
        shutil.rmtree(b)
    return EXCHANGE_WORKS


class LiveCorpusTest(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="flowcheck-corpus-test-")
        self.holder = os.path.join(self.top, "fuzz")  # the corpus's directory, nothing else
        scratch = os.path.join(self.top, "scratch")
        os.makedirs(scratch)
        self.env = {**os.environ, "TMPDIR": scratch}
        self.corpus = LiveCorpus(os.path.join(self.holder, "corpus"))
        os.makedirs(self.corpus.path)
        for i in range(6):
            self.put(self.corpus.path, f"input-{i}", b"input %d" % i)
        self.put(self.corpus.path, "copy-of-0", b"input 0")
        self.put(self.corpus.path, "redundant-0", b"redundant 0")
        self.before = snapshot(self.corpus.path)
        # What the fake merge makes of it: the distinct, non-redundant inputs.
        reference = os.path.join(self.top, "reference")
        shutil.copytree(self.corpus.path, reference)
        into = os.path.join(self.top, "merged")
        os.mkdir(into)
        self.assertTrue(self.fake_merge(into))
        self.after = snapshot(into)
        self.assertTrue(self.after and len(self.after) < len(self.before))

    def tearDown(self):
        shutil.rmtree(self.top, ignore_errors=True)

    @staticmethod
    def put(directory, name, data):
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)

    def fake_merge(self, into):
        """The stand-in libFuzzer's -merge=1 of the corpus as it was."""
        return subprocess.run([FAKE_FUZZER, "-merge=1", into, os.path.join(self.top, "reference")],
                              env=self.env).returncode == 0

    def copy_merge(self, into):
        """The merge result, written in-process (the swap is what is under test)."""
        for name, data in self.after.items():
            self.put(into, name, data)
        return True

    def forked_merge(self, build, kill_at=0):
        """Runs corpus.replace(build) in a forked child (its own process group,
        so a kill reaches the fake merge too); returns the child's pid."""
        pid = os.fork()
        if pid == 0:
            try:
                os.setpgid(0, 0)
                with KillAt(kill_at):
                    self.corpus.replace(build)
            finally:
                os._exit(0)
        try:
            os.setpgid(pid, pid)  # both sides, so the group exists before any kill
        except OSError:
            pass  # the child got there first, or is already gone
        return pid

    @staticmethod
    def exit_signal(pid):
        status = os.waitpid(pid, 0)[1]
        return os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0

    def assert_whole_after_recovery(self, context):
        if exchange_works(self.top):
            self.assertTrue(os.path.isdir(self.corpus.path), f"{context}: no live corpus")
            self.assertIn(snapshot(self.corpus.path), (self.before, self.after), context)
        self.corpus.recover()
        self.assertEqual(sorted(os.listdir(self.holder)), ["corpus"], context)
        got = snapshot(self.corpus.path)
        self.assertIn(got, (self.before, self.after),
                      f"{context}: {len(got)} inputs, neither the old corpus nor the merge")
        return got

    def restore_before(self):
        for entry in os.listdir(self.holder):
            shutil.rmtree(os.path.join(self.holder, entry))
        os.mkdir(self.corpus.path)
        for name, data in self.before.items():
            self.put(self.corpus.path, name, data)

    def test_sigkill_at_every_filesystem_step_of_a_merge(self):
        with KillAt() as dry_run:
            self.corpus.replace(self.copy_merge)
        self.assertEqual(snapshot(self.corpus.path), self.after)
        steps = dry_run.steps
        self.assertGreaterEqual(steps, 5)  # mkdir, rename, exchange, rename, the deletion
        seen = set()
        for k in range(1, steps + 1):
            self.restore_before()
            pid = self.forked_merge(self.copy_merge, kill_at=k)
            self.assertEqual(self.exit_signal(pid), signal.SIGKILL, f"step {k} not reached")
            got = self.assert_whole_after_recovery(f"killed before step {k} of {steps}")
            seen.add("after" if got == self.after else "before")
        self.assertEqual(seen, {"before", "after"})

    def test_ten_sigkills_at_random_moments_of_a_merge(self):
        self.env["FAKE_MERGE_DELAY"] = "0.01"  # the fake merge writes for ~0.1 s
        start = time.monotonic()
        self.assertEqual(self.exit_signal(self.forked_merge(self.fake_merge)), 0)
        duration = time.monotonic() - start
        rng = random.Random(15)
        for i in range(10):
            self.restore_before()
            pid = self.forked_merge(self.fake_merge)
            time.sleep(rng.uniform(0, duration))
            os.killpg(pid, signal.SIGKILL)
            self.exit_signal(pid)
            self.assert_whole_after_recovery(f"kill {i + 1}")

    def test_recover_from_every_state_a_kill_can_leave(self):
        c = self.corpus
        # (what happened, {directory: its content}, the content recover() keeps)
        states = [
            ("old campaign: killed between its two renames", {c.old: "before"}, "before"),
            ("old campaign: killed between its renames, merge done",
             {c.old: "before", c.legacy_building: "after"}, "before"),
            ("killed while the merge wrote", {c.path: "before", c.building: "partial"}, "before"),
            ("killed with the merge complete", {c.path: "before", c.ready: "after"}, "before"),
            ("killed between the swap's renames", {c.old: "before", c.ready: "after"}, "after"),
            ("killed before the old corpus was deleted", {c.path: "after", c.old: "before"},
             "after"),
            ("killed while the old corpus was deleted", {c.path: "after", c.old: "partial"},
             "after"),
        ]
        for what, dirs, kept in states:
            with self.subTest(what):
                shutil.rmtree(self.holder)
                os.mkdir(self.holder)
                for d, content in dirs.items():
                    os.mkdir(d)
                    files = self.before if content == "partial" else getattr(self, content)
                    for name, data in sorted(files.items())[: 3 if content == "partial" else None]:
                        self.put(d, name, data)
                self.assertTrue(c.recover())
                self.assertEqual(sorted(os.listdir(self.holder)), ["corpus"])
                self.assertEqual(snapshot(c.path), getattr(self, kept))

    def test_nothing_to_recover(self):
        self.assertEqual(self.corpus.recover(), [])
        shutil.rmtree(self.corpus.path)
        self.assertEqual(self.corpus.recover(), [])
        self.assertEqual(os.listdir(self.corpus.path), [])

    def test_a_failed_empty_or_interrupted_build_keeps_the_corpus(self):
        def interrupted(into):
            self.put(into, "partial", b"x")
            raise KeyboardInterrupt

        self.assertFalse(self.corpus.replace(lambda into: False))
        self.assertFalse(self.corpus.replace(lambda into: True))  # wrote nothing
        with self.assertRaises(KeyboardInterrupt):
            self.corpus.replace(interrupted)
        self.assertEqual(sorted(os.listdir(self.holder)), ["corpus"])
        self.assertEqual(snapshot(self.corpus.path), self.before)


if __name__ == "__main__":
    unittest.main()
