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
                    self.assertTrue(d in known or d.startswith("fuzz:"), d)
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


if __name__ == "__main__":
    unittest.main()
