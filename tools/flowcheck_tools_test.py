"""Unit tests of tools/flowcheck_tools: the atomic writer, the failure-marker
table, the libFuzzer command line and stopping a process group, and the crash
signatures (loaded from tools/signature_test.py). (The corpus module has
tools/corpus_test.py; the campaign, tools/campaign_test.py.)"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
from flowcheck_tools import ROOT, atomic, libfuzzer, markers, process  # noqa: E402
# Crash signatures and their index (tools/signature_test.py; run here too, as
# tools/test.sh runs this file; its RealReplayTest builds and is run alone).
from signature_test import CrashIndexTest, SignatureTest  # noqa: E402,F401


class WriteAtomicTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="flowcheck-atomic-test-")
        self.path = os.path.join(self.dir, "summary.json")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def read(self):
        with open(self.path) as f:
            return f.read()

    def test_writes_and_replaces_leaving_no_temporary_file(self):
        atomic.write_atomic(self.path, "first")
        atomic.write_json(self.path, {"a": 1})
        self.assertEqual(self.read(), '{\n  "a": 1\n}\n')
        self.assertEqual(os.listdir(self.dir), ["summary.json"])

    def test_a_failed_rename_keeps_the_old_file_and_names_path_and_errno(self):
        atomic.write_atomic(self.path, "old")
        saved = os.rename

        def failing_rename(src, dst):
            raise OSError(28, os.strerror(28))  # ENOSPC

        os.rename = failing_rename
        try:
            with self.assertRaises(atomic.WriteError) as e:
                atomic.write_atomic(self.path, "new")
        finally:
            os.rename = saved
        self.assertEqual(str(e.exception), f"cannot write {self.path}: No space left on device")
        self.assertEqual(self.read(), "old")
        self.assertEqual(os.listdir(self.dir), ["summary.json"])

    def test_a_missing_directory_is_an_error_naming_it(self):
        bad = os.path.join(self.dir, "no", "such", "x.json")
        with self.assertRaisesRegex(atomic.WriteError,
                                    f"^cannot write {bad}: No such file or directory$"):
            atomic.write_atomic(bad, "x")


class MarkersTest(unittest.TestCase):
    """The table's order and the line it reports (selftest_test.py checks
    every layer's real marker through the self-test's classify())."""

    def test_the_line_of_the_marker_that_wins(self):
        out = ("[stress] 1.0s ops 10\nflowcheck: FAIL [invariant F3] flow 3 has no owner\n"
               "flowcheck: seed 9\n")
        self.assertEqual(markers.find(out), markers.Marker(
            "invariant", "invariant F3", "flowcheck: FAIL [invariant F3] flow 3 has no owner"))

    def test_priority_not_position(self):
        out = ("flowcheck: FAIL [oracle] op #1\n"
               "WARNING: ThreadSanitizer: data race (pid=3)\n")
        self.assertEqual(markers.find(out).layer, "tsan")

    def test_an_unknown_flowcheck_tag_is_still_a_failure(self):
        self.assertEqual(markers.find("flowcheck: FAIL [sched] no progress").signature,
                         "flowcheck sched")

    def test_no_marker(self):
        self.assertIsNone(markers.find("[stress] PASS: seed 1\nflowcheck stress: seed 1\n"))


class LibFuzzerTest(unittest.TestCase):
    def test_options_dict_and_order(self):
        with tempfile.TemporaryDirectory() as pkg:
            with open(os.path.join(pkg, "t.options"), "w") as f:
                f.write("# a comment\n\n-max_len=64\n-use_value_profile=1\n")
            open(os.path.join(pkg, "t.dict"), "w").close()
            cmd = libfuzzer.command("/b/t_fuzzer", pkg, "t", ["/c", "/s"], fork=2, seed=1,
                                    seconds=5, artifact_prefix="/a", final_stats=True)
            self.assertEqual(cmd, ["/b/t_fuzzer", "-fork=2", "-seed=1", "-max_total_time=5",
                                   "-artifact_prefix=/a/", "-print_final_stats=1",
                                   "-max_len=64", "-use_value_profile=1",
                                   f"-dict={pkg}/t.dict", "/c", "/s"])
            self.assertEqual(libfuzzer.command("/e", pkg, "t", ["/c"], dictionary=False),
                             ["/e", "-max_len=64", "-use_value_profile=1", "/c"])
            self.assertEqual(libfuzzer.command("/e", pkg, "other", []), ["/e"])

    def test_every_committed_target_has_a_max_len(self):
        for t in ("reserve_fuzz", "flow_fuzz", "pure_fuzz"):
            with self.subTest(t):
                flags = libfuzzer.flags(os.path.join(ROOT, "fuzz"), t)
                self.assertTrue(any(f.startswith("-max_len=") for f in flags), flags)
                self.assertIn(f"-dict={ROOT}/fuzz/{t}.dict", flags)

    def test_status_line(self):
        m = libfuzzer.STATUS_RE.match("#4096: cov: 86 ft: 90 corp: 145 exec/s 2048 "
                                      "oom/timeout/crash: 0/0/1 time: 2s job: 1 dft_time: 0")
        self.assertEqual([int(x) for x in m.groups()], [4096, 86, 90, 145, 2048, 0, 0, 1, 2])


# A process group for stop_group: this script as leader starts itself again
# as a member; both handle SIGINT as argv[1] says, write their pid to $PIDS.
GROUP = textwrap.dedent(r"""
    import os, signal, subprocess, sys, time
    mode = sys.argv[1]
    seen = []
    def on_int(signum, frame):
        seen.append(signum)
        if mode == "cooperative" or (mode == "second" and len(seen) == 2):
            sys.exit(3)
    signal.signal(signal.SIGINT, signal.SIG_IGN if mode == "stubborn" else on_int)
    if len(sys.argv) == 2:
        subprocess.Popen([sys.executable, __file__, mode, "member"])
    with open(os.environ["PIDS"], "a") as f:
        f.write(f"{os.getpid()}\n")
    while True:
        time.sleep(0.01)
""")


def live(pid):
    """True if pid runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class StopGroupTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="flowcheck-stop-test-")
        self.script = os.path.join(self.dir, "group.py")
        with open(self.script, "w") as f:
            f.write(GROUP)
        self.pids = os.path.join(self.dir, "pids")
        open(self.pids, "w").close()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def start(self, mode):
        proc = subprocess.Popen([sys.executable, self.script, mode], start_new_session=True,
                                env={**os.environ, "PIDS": self.pids})
        while True:  # both running, their handlers installed
            with open(self.pids) as f:
                pids = [int(x) for x in f.read().split()]
            if len(pids) == 2:
                return proc, pids
            self.assertIsNone(proc.poll())
            time.sleep(0.01)

    def test_a_cooperative_group_exits_on_sigint(self):
        proc, pids = self.start("cooperative")
        self.assertEqual(process.stop_group(proc, grace_s=30), 3)
        self.assertFalse(any(live(p) for p in pids))

    def test_repeated_sigint_reaches_a_group_that_ignores_the_first(self):
        proc, pids = self.start("second")
        self.assertEqual(process.stop_group(proc, grace_s=30, repeat_s=0.2), 3)
        self.assertFalse(any(live(p) for p in pids))

    def test_what_ignores_sigint_is_killed_after_the_grace_period(self):
        proc, pids = self.start("stubborn")
        self.assertEqual(process.stop_group(proc, grace_s=0.3, repeat_s=0.1), -signal.SIGKILL)
        self.assertFalse(any(live(p) for p in pids), "a member of the group survived")

    def test_run_in_group_kills_the_group_on_timeout(self):
        code, out, _, timed_out = process.run_in_group(
            ["sh", "-c", "echo started; sleep 30 & wait"], cwd=ROOT, timeout=0.5)
        self.assertEqual((code, out, timed_out), (-signal.SIGKILL, "started\n", True))


if __name__ == "__main__":
    unittest.main()
