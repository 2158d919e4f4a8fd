"""End-to-end tests of the campaign with stand-ins for bazel, libFuzzer and the
stress driver (tools/testdata/fake_*): what the summary says after an
interrupt or an abort, what an interrupt leaves behind, which paths it prints,
how it treats bad flags and a corpus left by a kill. Nothing is built; each
campaign takes well under a second, except where a test waits for the grace
period it sets.
"""

import os
import shlex
import signal
import subprocess
import sys
import unittest

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
sys.path.insert(0, TOOLS)
import campaign_stress  # noqa: E402
from campaign_fixture import CampaignFixture, wait_for  # noqa: E402
from campaign_corpus_test import CorpusManagementTest  # noqa: E402,F401 (run here too)
from campaign_crashes_test import CrashSignaturesTest  # noqa: E402,F401 (run here too)


class CampaignTest(CampaignFixture):
    # --- the stress verdict is this run's --------------------------------------

    def run_stress(self, mode, interrupt=False):
        args = ["--seconds=1", "--no-fuzz", f"--out={self.out}"]
        if interrupt:
            return self.interrupted_campaign(*args, FAKE_STRESS=mode)
        return self.campaign(*args, FAKE_STRESS=mode)

    def test_an_interrupted_stress_run_is_interrupted_not_the_last_pass(self):
        rc, out = self.run_stress("pass")
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.summary()["stress"][0]["report"]["result"], "pass")
        rc, out = self.run_stress("hang", interrupt=True)
        self.assertEqual(rc, 130, out)
        s = self.summary()
        stress = s["stress"][0]
        self.assertEqual(stress.get("outcome"), "interrupted", stress)
        self.assertIsNone(stress.get("report"), "an earlier run's report is shown")
        self.assertFalse(s["failed"])
        self.assertTrue(s["interrupted"])
        self.assertIn("stress stress_main: interrupted", out)

    def test_an_interrupt_the_driver_reports_is_interrupted(self):
        rc, out = self.run_stress("interrupt-report", interrupt=True)
        self.assertEqual(rc, 130, out)
        stress = self.summary()["stress"][0]
        self.assertEqual((stress["outcome"], stress["report"]["result"]),
                         ("interrupted", "interrupted"))

    def test_an_abort_without_a_report_is_a_fail_naming_the_report_line(self):
        self.run_stress("pass")
        rc, out = self.run_stress("lockcheck")
        self.assertEqual(rc, 1, out)
        s = self.summary()
        stress = s["stress"][0]
        self.assertEqual(stress.get("outcome"), "fail")
        self.assertIn("lockcheck: lock-order-inversion on &qp->s_lock", stress["failure"])
        self.assertIsNone(stress["report"])
        self.assertTrue(s["failed"])
        with open(stress["log"]) as f:
            self.assertIn("lockcheck: aborting", f.read())

    def test_a_failure_shows_the_marker_the_report_and_the_rerun_command(self):
        rc, out = self.run_stress("fail")
        self.assertEqual(rc, 1, out)
        stress = self.summary()["stress"][0]
        self.assertEqual(stress["outcome"], "fail")
        self.assertEqual(stress["failure"], "flowcheck: FAIL [invariant F1] flow 3 owned twice")
        self.assertEqual(stress["report"]["result"], "fail")
        self.assertIn("rerun: bazel run --config=tsan //stress:stress_main -- --seed=7", out)

    def test_exit_0_without_a_report_is_not_a_pass(self):
        self.run_stress("pass")
        rc, out = self.run_stress("silent-exit")
        self.assertEqual(rc, 1, out)
        self.assertEqual(self.summary()["stress"][0]["outcome"], "fail")

    # --- interrupts leave no libFuzzer scratch files ----------------------------

    def test_a_fuzzer_that_ignores_the_first_sigint_still_exits_and_cleans_up(self):
        rc, out = self.interrupted_campaign(
            "--seconds=60", "--targets=pure_fuzz", "--no-stress", f"--out={self.out}",
            FAKE_FUZZER_SIGINT="ignore-first", FAKE_FUZZ_SECONDS="120")
        self.assertEqual(rc, 130, out)
        # 72: the fake's own exit on SIGINT, after removing its files (not -9).
        self.assertEqual(self.summary()["fuzz"][0]["exit_code"], 72, out)
        self.assertEqual(self.leftovers(), [])

    def test_what_a_killed_fuzzer_leaves_is_removed(self):
        rc, out = self.interrupted_campaign(
            "--seconds=60", "--targets=pure_fuzz", "--no-stress", f"--out={self.out}",
            "--stop-grace=0.5", FAKE_FUZZER_SIGINT="ignore", FAKE_FUZZ_SECONDS="120")
        self.assertEqual(rc, 130, out)
        self.assertEqual(self.summary()["fuzz"][0]["exit_code"], -signal.SIGKILL, out)
        self.assertEqual(self.leftovers(), [])

    # --- paths: the user's directory, absolute paths printed --------------------

    def test_relative_out_and_printed_reproduce_command_work_from_the_users_directory(self):
        work = os.path.join(self.tmp, "work")
        rc, out = self.campaign("--seconds=1", "--targets=pure_fuzz", "--no-stress",
                                "--out=rel-out", cwd=work, script="campaign.sh",
                                FAKE_FUZZER_CRASH="1", FLOWCHECK_FUZZ_STRICT="1")
        self.assertEqual(rc, 1, out)
        self.assertFalse(os.path.exists(os.path.join(ROOT, "rel-out")), "--out taken from the root")
        crash = os.path.join(work, "rel-out", "fuzz", "pure_fuzz", "crashes", "crash-fake")
        self.assertEqual(self.summary(os.path.join(work, "rel-out"))["fuzz"][0]["crashes"], [crash])
        line = next((l for l in out.splitlines() if "reproduce: " in l), None)
        self.assertEqual(line.split("reproduce: ", 1)[1],
                         f"{ROOT}/tools/reproduce.sh --strict {crash}", out)
        # Run as printed, from elsewhere.
        r = subprocess.run(shlex.split(line.split("reproduce: ", 1)[1]), cwd=self.tmp,
                           env=self.env, text=True, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn(f"fake reproduce: --strict {crash}", r.stdout)

    def test_empty_targets_is_an_error_and_runs_nothing(self):
        for value in ("--targets=", "--targets=pure_fuzz,"):
            rc, out = self.campaign(value, f"--out={self.out}")
            self.assertEqual(rc, 2, out)
            self.assertEqual(len(out.strip().splitlines()), 1, out)
            self.assertFalse(os.path.exists(os.path.join(self.tmp, "bazel.log")), "it ran bazel")

    def test_an_unknown_target_is_an_error_naming_the_known_ones(self):
        rc, out = self.campaign("--targets=pure_fuzz,nope", f"--out={self.out}")
        self.assertEqual(rc, 2, out)
        self.assertEqual(out.strip(), "campaign: unknown fuzz target(s): nope "
                         "(known: flow_fuzz, pure_fuzz)")

    def test_an_unusable_out_is_an_error_naming_it(self):
        blocker = os.path.join(self.tmp, "a-file")
        open(blocker, "w").close()
        rc, out = self.campaign(f"--out={blocker}/out")
        self.assertEqual(rc, 2, out)
        self.assertEqual(out.strip(), f"campaign: cannot use --out={blocker}/out: Not a directory")

    def test_a_second_campaign_on_the_same_out_is_refused(self):
        first = self.start("--seconds=60", "--no-fuzz", f"--out={self.out}", FAKE_STRESS="hang")
        try:
            wait_for(self.ready, first)
            rc, out = self.campaign("--seconds=1", "--no-fuzz", f"--out={self.out}")
            self.assertEqual(rc, 2, out)
            self.assertIn("another campaign is running", out)
        finally:
            first.send_signal(signal.SIGINT)
            first.communicate(timeout=60)

    # --- a corpus left by a kill between the old merge's renames ----------------

    def test_a_corpus_left_as_corpus_old_is_restored_not_deleted(self):
        old = os.path.join(self.out, "fuzz", "pure_fuzz", "corpus.old")
        os.makedirs(old)
        for i in range(5):
            with open(os.path.join(old, f"input-{i}"), "w") as f:
                f.write(f"kept input {i}")
        rc, out = self.campaign("--seconds=1", "--targets=pure_fuzz", "--no-stress",
                                f"--out={self.out}")
        self.assertEqual(rc, 0, out)
        corpus = os.path.join(self.out, "fuzz", "pure_fuzz", "corpus")
        contents = set()
        for name in os.listdir(corpus):
            with open(os.path.join(corpus, name), "rb") as f:
                contents.add(f.read())
        self.assertLessEqual({b"kept input %d" % i for i in range(5)}, contents, out)
        self.assertFalse(os.path.exists(old))


class OutcomeTest(unittest.TestCase):
    """campaign_stress.outcome(): the verdict table."""

    def test_verdicts(self):
        passed = {"result": "pass", "seed": 1}
        cases = [
            ((0, "[stress] PASS", passed, False), "pass"),
            ((0, "", None, False), "fail"),
            ((0, "", {"result": "unreadable"}, False), "fail"),
            ((-6, "flowcheck: FAIL [watchdog] no progress", None, False), "fail"),
            ((-6, "WARNING: ThreadSanitizer: data race (pid=1)", None, False), "fail"),
            ((-6, "", {"result": "fail", "failure": "oracle"}, False), "fail"),
            ((-6, "", None, False), "fail"),
            ((-2, "", None, True), "interrupted"),
            ((-9, "", None, True), "interrupted"),
            ((130, "", {"result": "interrupted"}, False), "interrupted"),
            ((-2, "", passed, False), "interrupted"),
            ((-2, "flowcheck: FAIL [invariant W1] x", None, True), "fail"),
        ]
        for args, want in cases:
            with self.subTest(args=args):
                self.assertEqual(campaign_stress.outcome(*args)[0], want)


if __name__ == "__main__":
    unittest.main()
