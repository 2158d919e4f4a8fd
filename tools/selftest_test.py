"""Unit tests of the self-test runner's catalog parsing and failure classification.

The runner's verdicts rest on two things: reading each mutant's header right,
and naming the layer that spoke from a detector's output. A classifier that
confused, say, a TSan report with a lockcheck report would credit the wrong
layer, so each layer's real marker line is checked here, and every committed
mutant header is validated.
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import selftest  # noqa: E402
import selftest_sched  # noqa: E402


class ClassifyTest(unittest.TestCase):
    CASES = [
        ("core/callers.cc:91:13: error: calling function 'kern_reserve_flow' requires "
         "holding mutex 'rcd->exp_lock' exclusively [-Werror,-Wthread-safety-analysis]",
         "compile", "compile requires lock (kern_reserve_flow)"),
        ("==================\nWARNING: ThreadSanitizer: data race (pid=4)\n  Write of size 8",
         "tsan", "tsan data race"),
        ("======== lockcheck: lock-order-inversion on &qp->s_lock ========\n...\n"
         "lockcheck: aborting on the first violation", "lockcheck",
         "lockcheck lock-order-inversion"),
        ("flowcheck: FAIL [oracle] flow_fuzz op #39 (call 2) run_all_work()", "oracle", "oracle"),
        ("flowcheck: FAIL [invariant F1] flow_mask 0xffffffff00000001 has bits above 31 set",
         "invariant", "invariant F1"),
        ("flowcheck: FAIL [watchdog] no progress for 10 s", "watchdog", "watchdog"),
        ("==1==ERROR: AddressSanitizer: heap-buffer-overflow on address", "asan",
         "asan heap-buffer-overflow"),
        ("[  FAILED  ] KernReserveFlow.AllTaken (0 ms)", "unit", "unit KernReserveFlow.AllTaken"),
        ("nothing recognisable", "unclassified", "unclassified"),
    ]

    def test_each_layer_is_named_from_its_own_marker(self):
        for out, layer, sig in self.CASES:
            with self.subTest(layer=layer):
                self.assertEqual(selftest.classify(out), layer)
                self.assertEqual(selftest.signature(out), sig)

    def test_tsan_report_mentioning_lockcheck_frames_is_still_tsan(self):
        out = ("WARNING: ThreadSanitizer: data race\n    #3 lockcheck::BasicSpinLock<true>::Lock\n"
               "lockcheck: note")
        self.assertEqual(selftest.classify(out), "tsan")


class CatalogTest(unittest.TestCase):
    def test_header_is_parsed_until_the_blank_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".patch", delete=False) as f:
            f.write("Id: x\nTitle: a bug # not a comment\nLayer: oracle   # a comment\n"
                    "Detectors: fuzz:a, stress\nExpect: op #3\n\ndiff --git a/x b/x\nId: no\n")
        try:
            meta = selftest.parse_header(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(meta, {"id": "x", "title": "a bug # not a comment", "layer": "oracle",
                                "detectors": "fuzz:a, stress", "expect": "op #3"})

    def test_every_committed_mutant_is_well_formed(self):
        entries = selftest.load_catalog()
        self.assertGreaterEqual(len(entries), 15)
        known = {"compile", "unit", "replay", "stress"}
        for e in entries:
            with self.subTest(id=e["id"]):
                self.assertIn(e["layer"], selftest.LAYERS)
                self.assertTrue(e["detectors"])
                for d in e["detectors"]:
                    self.assertTrue(d in known or d.startswith("fuzz:") or
                                    d.split(":", 1)[1:] in ([x] for x in selftest_sched.STRATEGIES),
                                    d)
                path = os.path.join(selftest.MUTANTS, e["patch"])
                with open(path) as f:
                    self.assertIn("\ndiff --git a/", f.read())


class VerdictTest(unittest.TestCase):
    """run_entry's verdict from canned detector outputs (no build, no patch)."""

    class FakeScratch:
        dir = "/nonexistent"

        def patch(self, path, reverse=False):
            pass

    UBSAN = "core/tid_rdma_flow.cc:60:20: runtime error: index 32 out of bounds\n"
    ORACLE = "flowcheck: FAIL [oracle] reserve_fuzz op #1 reserve_flow(last=40)\n"

    def verdict(self, outputs, **entry):
        e = {"id": "m", "title": "t", "patch": "m.patch", "layer": "oracle",
             "detectors": [f"d{i}" for i in range(len(outputs))]}
        e.update(entry)
        canned = iter(outputs)
        saved = selftest.run_detector
        selftest.run_detector = lambda det, d, b: selftest.finish(True, next(canned), 0.1, 0.0)
        try:
            return selftest.run_entry(e, self.FakeScratch(), 10)
        finally:
            selftest.run_detector = saved

    def test_another_layer_alone_is_not_the_intended_catch(self):
        r = self.verdict([self.UBSAN])
        self.assertEqual(r["first"]["layer"], "asan")
        self.assertFalse(r["intended_caught"])

    def test_an_also_layer_counts_and_is_named(self):
        r = self.verdict([self.UBSAN], also=["asan"])
        self.assertTrue(r["intended_caught"])
        self.assertEqual(r["caught_by_also"], "asan")

    def test_the_intended_layer_after_another_one_counts(self):
        r = self.verdict([self.UBSAN, self.ORACLE])
        self.assertTrue(r["intended_caught"])
        self.assertEqual(r["first"]["layer"], "asan")
        self.assertNotIn("caught_by_also", r)

    def test_expect_must_match_the_intended_layers_output(self):
        r = self.verdict([self.ORACLE], expect=r"last=33")
        self.assertFalse(r["intended_caught"])
        r = self.verdict([self.ORACLE], expect=r"last=40")
        self.assertTrue(r["intended_caught"])


    def test_every_concurrency_mutant_lists_a_controlled_detector(self):
        for e in selftest.load_catalog():
            if "stress" in e["detectors"]:
                with self.subTest(id=e["id"]):
                    self.assertIn("sched:pct", e["detectors"])

    def test_figures_run_every_detector_and_an_unreplayed_catch_does_not_count(self):
        outputs = iter([self.ORACLE, self.ORACLE])
        saved = selftest.run_detector

        def fake(det, d, b):
            r = selftest.finish(True, next(outputs), 0.1, 0.0)
            if det == "sched:pct":
                r["replay_failed"] = "exit 0"
            return r
        selftest.run_detector = fake
        try:
            e = {"id": "m", "title": "t", "patch": "m.patch", "layer": "oracle",
                 "detectors": ["stress"]}
            r = selftest.run_entry(e, self.FakeScratch(), 10, ["sched:pct", "stress"])
        finally:
            selftest.run_detector = saved
        self.assertEqual([x["detector"] for x in r["runs"]], ["sched:pct", "stress"])
        self.assertEqual(r["intended_run"]["detector"], "stress")


# A controlled run's output (stress_main --sched=pct), fabricated after the
# real one: the scheduler's [check] line nests the invariant, the stress
# driver's own marker comes last.
PCT_CATCH = """flowcheck stress: seed 1, controlled (--sched=pct); rerun: ...
flowcheck: trace hash 9552fd533daa7ea8
flowcheck: schedule written: /tmp/s/stress-pct-seed1-exec2409.schedule
flowcheck: rerun: tools/reproduce.sh /tmp/s/stress-pct-seed1-exec2409.schedule
flowcheck: FAIL [check] the controller: [invariant no-lost-wakeup] qp 6 waits at the head
<every logical thread's state>
flowcheck: trace hash 796a273c4688531c
flowcheck: pct: bound 1/(n k^(d-1)) = 1/(7*169^2) = 5e-06 per execution (n=7 threads, k=169 \
steps, d=3); 2410 executions (seed 1), stopped at a failure
flowcheck: FAIL [invariant no-lost-wakeup] qp 6 waits at the head of flow_queue
""".replace("\\\n", "")
LOCKCHECK_CATCH = """flowcheck: schedule written: /tmp/s/stress-dfs-seed1-exec3.schedule
flowcheck: FAIL [lockcheck] lock-order-inversion on &qp->s_lock
======== lockcheck: lock-order-inversion on &qp->s_lock ========
flowcheck: trace hash 0123456789abcdef
flowcheck: dfs: explored 1 program x 4 schedules, stopped at a failure
flowcheck: FAIL [check] lockcheck: lock-order-inversion on &qp->s_lock
"""
TSAN_CATCH = """flowcheck: trace hash 0123456789abcdef
==================
WARNING: ThreadSanitizer: data race (pid=7)
  Write of size 1 at 0x7b by thread T0:
    #0 hfi1_kern_clear_hw_flow core/tid_rdma_flow.cc:150
"""


def replayed(hash_, code=1):
    return (code, "flowcheck: replay: reproduced [check], trace hash %s as recorded\n" % hash_,
            0.1, False)


class SchedDetectorTest(unittest.TestCase):
    def test_controlled_failures_are_classified_like_stress_ones(self):
        self.assertEqual(selftest.signature(PCT_CATCH), "invariant no-lost-wakeup")
        self.assertEqual(selftest.signature(LOCKCHECK_CATCH), "lockcheck lock-order-inversion")
        self.assertEqual(selftest.signature(TSAN_CATCH), "tsan data race")

    def test_parse_takes_the_failing_executions_hash_and_the_bound(self):
        info = selftest_sched.parse_run(PCT_CATCH)
        self.assertEqual(info["schedule"], "/tmp/s/stress-pct-seed1-exec2409.schedule")
        self.assertEqual(info["trace_hash"], "796a273c4688531c")
        self.assertEqual(info["executions"], 2410)
        self.assertEqual(info["bound"], "5e-06")
        self.assertEqual(info["bound_formula"], "1/(7*169^2)")
        info = selftest_sched.parse_run(LOCKCHECK_CATCH)
        self.assertEqual(info["executions"], 4)
        self.assertIsNone(info["bound"])
        self.assertIsNone(selftest_sched.parse_run(TSAN_CATCH)["schedule"])

    def test_command_per_strategy(self):
        cmd = selftest_sched.command("/b/stress_main", "dfs", 60, "/w")
        self.assertEqual(cmd, ["/b/stress_main", "--sched=dfs", "--seed=1", "--seconds=60",
                               "--schedule_out=/w/", "--sched_program_ops=3",
                               "--max_preemptions=1", "--threads=2", "--qps_per_thread=1",
                               "--workers=1", "--irq_thread=false"])
        self.assertEqual(selftest_sched.command("b", "pct", 1, "/w")[5:], ["--sched_segment_percent=15"])
        with self.assertRaises(ValueError):
            selftest_sched.command("b", "bogus", 1, "/w")

    def test_a_replay_counts_only_with_exit_1_and_the_recorded_hash(self):
        h = "796a273c4688531c"
        self.assertTrue(selftest_sched.replay_ok(*replayed(h)[:2], h))
        self.assertFalse(selftest_sched.replay_ok(*replayed(h, code=0)[:2], h))
        self.assertFalse(selftest_sched.replay_ok(*replayed("0" * 16)[:2], h))
        self.assertFalse(selftest_sched.replay_ok(1, "flowcheck: FAIL [deadlock] x\n", h))

    def annotate(self, output, replies):
        calls = []

        def run_cmd(cmd, cwd, timeout, env=None):
            calls.append(cmd)
            return replies[len(calls) - 1]
        r = selftest.finish(True, output, 1.5, 0.0)
        r["detector"] = "sched:pct"
        return selftest_sched.annotate(r, output, True, run_cmd, "/b/stress_main", "/s"), calls

    def test_a_catch_is_replayed_ten_times(self):
        r, calls = self.annotate(PCT_CATCH, [replayed("796a273c4688531c")] * 10)
        self.assertEqual(r["replayed"], "10/10")
        self.assertNotIn("replay_failed", r)
        self.assertEqual(calls[0], ["/b/stress_main",
                                    "--replay=/tmp/s/stress-pct-seed1-exec2409.schedule"])
        self.assertEqual(len(calls), 10)
        self.assertIn("replayed 10/10", selftest_sched.cell(r))
        self.assertIn("1/2410", selftest_sched.pct_rate(r))
        self.assertTrue(selftest_sched.controlled_catch({"runs": [r]}))

    def test_one_diverging_replay_fails_the_catch(self):
        replies = [replayed("796a273c4688531c")] * 9 + [replayed("ffffffffffffffff")]
        r, _ = self.annotate(PCT_CATCH, replies)
        self.assertEqual(r["replayed"], "9/10")
        self.assertIn("replay_failed", r)
        self.assertFalse(selftest_sched.controlled_catch({"runs": [r]}))

    def test_a_report_without_schedule_file_is_not_replayed(self):
        r, calls = self.annotate(TSAN_CATCH, [])
        self.assertEqual(r["replayed"], "no schedule file")
        self.assertEqual(calls, [])
        self.assertFalse(selftest_sched.controlled_catch({"runs": [r]}))

    def test_a_tsan_catch_is_retried_with_reports_off_for_its_consequence(self):
        r, _ = self.annotate(TSAN_CATCH, [])
        seen = []

        def run_cmd(cmd, cwd, timeout, env=None):
            seen.append((cmd, env["TSAN_OPTIONS"]))
            return (1, PCT_CATCH, 2.0, False) if len(seen) == 1 else replayed("796a273c4688531c")
        r = selftest_sched.consequence(r, ["/b/stress_main", "--sched=pct"], run_cmd,
                                       "/b/stress_main", "/s", selftest.finish)
        self.assertTrue(all(opts.endswith("report_bugs=0") for _, opts in seen))
        self.assertEqual(len(seen), 11)
        self.assertEqual(r["consequence"]["signature"], "invariant no-lost-wakeup")
        self.assertEqual(r["consequence"]["replayed"], "10/10")
        self.assertIn("no schedule file (TSan ends the process first); TSan reports off: ",
                      selftest_sched.cell(r))
        self.assertIn("1/2410", selftest_sched.pct_rate(r))
        self.assertTrue(selftest_sched.controlled_catch({"runs": [r]}))

    def test_a_failure_before_the_first_decision_has_no_bound(self):
        r = {"fired": True, "executions": 1, "pct_bound": "0", "pct_bound_formula": "1/(0*0^2)"}
        self.assertEqual(selftest_sched.pct_rate(r), "1/1 = 1")


if __name__ == "__main__":
    unittest.main()
