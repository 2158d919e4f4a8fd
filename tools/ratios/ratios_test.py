#!/usr/bin/env python3
"""Unit tests of tools/ratios/ratios.py: parsing, the per-round ratio
medians, goals, the output lines and the exit statuses, on fake benchmark
binaries and commands (no real benchmark runs)."""

import io
import json
import os
import stat
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratios  # noqa: E402


def gbench_report(times, unit="ns", label=None):
    """A Google Benchmark JSON report: {name: [cpu_time per repetition]}."""
    runs = []
    for name, values in times.items():
        for i, v in enumerate(values):
            run = {"name": name, "run_name": name, "run_type": "iteration",
                   "repetition_index": i, "cpu_time": v, "real_time": v * 3,
                   "time_unit": unit}
            if label:
                run["label"] = label
            runs.append(run)
        runs.append({"name": name + "_median", "run_name": name, "run_type": "aggregate",
                     "aggregate_name": "median", "cpu_time": 1e9, "time_unit": unit})
    return json.dumps({"context": {}, "benchmarks": runs})


class ParseTest(unittest.TestCase):
    def test_median_of_repetitions_in_ns_and_aggregates_ignored(self):
        times, labels = ratios.parse_gbench_json(
            gbench_report({"A": [3.0, 1.0, 2.0], "B": [0.004, 0.006, 0.005]}, unit="us"))
        self.assertEqual(times, {"A": 2000.0, "B": 5.0})
        self.assertEqual(labels, set())

    def test_a_failed_benchmark_or_garbage_is_a_run_error(self):
        bad = json.dumps({"benchmarks": [{"name": "A", "run_name": "A", "cpu_time": 1,
                                          "error_occurred": True, "error_message": "boom"}]})
        with self.assertRaisesRegex(ratios.RunError, "boom"):
            ratios.parse_gbench_json(bad)
        with self.assertRaisesRegex(ratios.RunError, "not JSON"):
            ratios.parse_gbench_json("Running ./x\n")


class ResultTest(unittest.TestCase):
    def test_the_ratio_is_the_median_of_per_round_ratios(self):
        # Round 2 ran on a busy machine: everything twice as slow. Ratios of
        # per-name medians would say 3.0/1.5 = 2.0x; every round says 1.5x.
        rounds = [{"m": 1.5, "b": 1.0}, {"m": 3.0, "b": 2.0}, {"m": 6.0, "b": 4.0}]
        r = ratios.Result(rounds, [("m", "b")], [("g", 1.6, "^m vs b$")], False)
        self.assertAlmostEqual(r.ratio("m", "b"), 1.5)
        self.assertEqual(r.value("m"), 3.0)
        self.assertEqual(r.verdicts(), [("g", 1.6, 1.5, "m vs b", True)])

    def test_rates_are_inverted_so_above_one_means_slower(self):
        rounds = [{"tsan": 10.0, "o1": 25.0}, {"tsan": 20.0, "o1": 40.0}, {"tsan": 5.0, "o1": 20.0}]
        r = ratios.Result(rounds, [("tsan", "o1")], [("slowdown", 2.4, "tsan")], True)
        self.assertAlmostEqual(r.ratio("tsan", "o1"), 2.5)
        self.assertFalse(r.verdicts()[0][4])

    def test_the_worst_row_of_a_goal_decides_and_other_rows_are_reference(self):
        rounds = [{"a": 2.0, "c": 3.5, "ref": 9.0, "base": 1.0}]
        pairs = [("a", "base"), ("c", "base"), ("ref", "base")]
        r = ratios.Result(rounds, pairs, [("ac", 3.0, "^[ac] vs")], False)
        self.assertEqual(r.verdicts(), [("ac", 3.0, 3.5, "c vs base", False)])
        text = ratios.render("T", "ns", r)
        self.assertIn("ref vs base", text)
        self.assertIn("(reference)", text)
        self.assertTrue(text.endswith("ac: 3.50x (c vs base), goal <= 3x: FAIL"), text)

    def test_a_goal_matching_no_row_is_a_run_error(self):
        r = ratios.Result([{"a": 1.0, "b": 1.0}], [("a", "b")], [("g", 1.0, "zzz")], False)
        with self.assertRaisesRegex(ratios.RunError, "no ratio row"):
            r.verdicts()


class MainTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def fake_gbench(self, times_per_run, label=None, rc=0):
        """An executable that prints the next report of `times_per_run` each
        time it runs, and records its arguments."""
        state = os.path.join(self.dir.name, "state.json")
        with open(state, "w") as f:
            json.dump({"n": 0, "reports": [gbench_report(t, label=label) for t in times_per_run],
                       "args": []}, f)
        path = os.path.join(self.dir.name, "fake_benchmark")
        with open(path, "w") as f:
            f.write(f"""#!{sys.executable}
import json, sys
with open({state!r}) as f: s = json.load(f)
s["args"].append(sys.argv[1:])
print(s["reports"][s["n"] % len(s["reports"])])
s["n"] += 1
with open({state!r}, "w") as f: json.dump(s, f)
sys.exit({rc})
""")
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
        return path, state

    def run_main(self, argv):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            rc = ratios.main(argv)
        return rc, out.getvalue(), err.getvalue()

    SPEC = ["--title=fake", "--rounds=3", "--ratio", "On", "Plain", "--ratio", "Off", "Plain",
            "--goal", "off", "1.2", "^Off vs", "--goal", "on", "3", "^On vs"]

    def test_gbench_rounds_pass_and_fail(self):
        binary, state = self.fake_gbench([{"Plain": [2.0], "Off": [2.1], "On": [5.0]},
                                          {"Plain": [4.0], "Off": [4.0], "On": [14.0]},
                                          {"Plain": [2.0], "Off": [2.0], "On": [5.6]}])
        rc, out, _ = self.run_main(self.SPEC + ["gbench", "--repetitions=5", "--", binary, "x"])
        self.assertEqual(rc, 0, out)
        lines = out.splitlines()
        self.assertEqual(lines[0], "fake")
        self.assertIn("off: 1.00x (Off vs Plain), goal <= 1.2x: PASS", lines)
        self.assertIn("on: 2.80x (On vs Plain), goal <= 3x: PASS", lines)
        with open(state) as f:
            args = json.load(f)["args"]
        self.assertEqual(len(args), 3)
        self.assertEqual(args[0][0], "x")
        self.assertIn("--benchmark_repetitions=5", args[0])
        self.assertIn("--benchmark_enable_random_interleaving=true", args[0])

        binary, _ = self.fake_gbench([{"Plain": [2.0], "Off": [2.0], "On": [6.2]}])
        rc, out, _ = self.run_main(self.SPEC + ["gbench", "--", binary])
        self.assertEqual(rc, 1, out)
        self.assertIn("on: 3.10x (On vs Plain), goal <= 3x: FAIL", out.splitlines())

    def test_gbench_cannot_run_is_exit_2(self):
        binary, _ = self.fake_gbench([{"Plain": [2.0], "Off": [2.0]}])  # no On
        rc, out, err = self.run_main(self.SPEC + ["gbench", "--", binary])
        self.assertEqual((rc, out), (2, ""))
        self.assertIn("On missing from round 1", err)
        binary, _ = self.fake_gbench([{"Plain": [2.0], "Off": [2.0], "On": [2.0]}], rc=3)
        self.assertEqual(self.run_main(self.SPEC + ["gbench", "--", binary])[0], 2)
        binary, _ = self.fake_gbench([{"Plain": [2.0], "Off": [2.0], "On": [2.0]}],
                                     label="lockcheck checks ON (use --config=bench)")
        rc, _, err = self.run_main(self.SPEC + ["gbench", "--", binary])
        self.assertEqual(rc, 2)
        self.assertIn("--config=bench", err)
        self.assertEqual(self.run_main(self.SPEC + ["gbench", "--", "/nonexistent/x"])[0], 2)

    def test_commands_rotate_and_rates_give_slowdowns(self):
        log = os.path.join(self.dir.name, "order.log")
        rate = {"o1": 300, "tsan": 100, "default": 150}
        variants = []
        for name, r in rate.items():
            cmd = (f"echo {name} >> {log} && "
                   f"{sys.executable} -c 'import json,sys; json.dump({{\"ops\": {r}}}, "
                   f"open(sys.argv[1], \"w\"))' {{json}}")
            variants += ["--variant", f"{name}={cmd}"]
        rc, out, _ = self.run_main(
            ["--title=stress", "--rounds=3", "--higher_is_better", "--ratio", "tsan", "o1",
             "--ratio", "tsan", "default", "--goal", "TSan slowdown", "10", "^tsan vs o1$",
             "commands", "--json_key=ops"] + variants)
        self.assertEqual(rc, 0, out)
        self.assertIn("TSan slowdown: 3.00x (tsan vs o1), goal <= 10x: PASS", out.splitlines())
        self.assertIn("tsan vs default", out)
        self.assertIn("300 ops/s", out)
        with open(log) as f:
            order = f.read().split()
        self.assertEqual(order, ["o1", "tsan", "default", "tsan", "default", "o1",
                                 "default", "o1", "tsan"])

    def test_a_failing_command_is_exit_2(self):
        rc, _, err = self.run_main(
            ["--title=t", "--rounds=1", "--ratio", "a", "b", "commands", "--json_key=k",
             "--variant", "a=exit 4", "--variant", "b=true"])
        self.assertEqual(rc, 2)
        self.assertIn("variant a (round 1) exited 4", err)


if __name__ == "__main__":
    unittest.main()
