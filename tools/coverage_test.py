#!/usr/bin/env python3
"""Tests of tools/coverage_summary.py (per-directory figures, the summary
line's format, uncovered lines from llvm-cov's text output) and, with
--run-script, of tools/coverage.sh end to end on a tiny corpus: the summary
line parses and the HTML index exists.

  python3 tools/coverage_test.py                # the helper only (no build)
  python3 tools/coverage_test.py --run-script   # also builds and runs coverage.sh
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import coverage_summary  # noqa: E402

LINE_RE = re.compile(
    r"^flowcheck: coverage (\S+/): lines (\d+\.\d)% \((\d+)/(\d+)\), "
    r"branches (\d+\.\d)% \((\d+)/(\d+)\)$")


def file_entry(name, lc, ln, bc, bn):
    return {"filename": name, "summary": {
        "lines": {"covered": lc, "count": ln},
        "branches": {"covered": bc, "count": bn}}}


class SummaryTest(unittest.TestCase):
    EXPORT = {"data": [{"files": [
        file_entry("core/tid_rdma_flow.cc", 90, 100, 30, 40),
        file_entry("/proc/self/cwd/core/qp.cc", 10, 20, 5, 10),
        file_entry("core/oracle/lockstep.cc", 7, 8, 1, 2),
        file_entry("fuzz/executor.cc", 1, 1000, 0, 10),
        file_entry("external/com_google_absl/absl/x.h", 0, 50, 0, 4),
    ]}]}

    def test_per_directory_sums_own_files_only(self):
        dirs = coverage_summary.per_directory(self.EXPORT, ["core/"])
        self.assertEqual(dirs, {"core/": [100, 120, 35, 50], "core/oracle/": [7, 8, 1, 2]})

    def test_summary_line_format(self):
        lines = coverage_summary.summary_lines({"core/": [100, 120, 35, 50]})
        self.assertEqual(lines, ["flowcheck: coverage core/: lines 83.3% (100/120), "
                                 "branches 70.0% (35/50)"])
        self.assertRegex(lines[0], LINE_RE)

    def test_no_branches_is_not_a_division_by_zero(self):
        self.assertIn("branches n/a (0/0)", coverage_summary.summary_lines({"u/": [1, 2, 0, 0]})[0])

    def test_uncovered_lines_from_show_text(self):
        text = ("/tmp/x/core/tid_rdma_flow.cc:\n"
                "    1|       |// comment\n"
                "    2|     10|int f() {\n"
                "    3|      0|  a();\n"
                "    4|      0|  b();\n"
                "    5|  1.20k|  c();\n"
                "    6|      0|  d();\n"
                "fuzz/executor.cc:\n"
                "    1|      0|x\n")
        got = coverage_summary.uncovered(text, ["core/"])
        self.assertEqual(got, {"core/tid_rdma_flow.cc": [3, 4, 6]})
        self.assertEqual(coverage_summary.ranges([3, 4, 6]), "3-4, 6")

    def test_main_exit_2_when_nothing_matches(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "e.json")
            with open(p, "w") as f:
                json.dump(self.EXPORT, f)
            self.assertEqual(coverage_summary.main([p, "--dirs=upstream/"]), 2)
            self.assertEqual(coverage_summary.main([os.path.join(d, "missing"), "--dirs=core/"]), 2)


class ScriptTest(unittest.TestCase):
    """tools/coverage.sh on a tiny corpus (one kept input for one target,
    --targets=pure_fuzz). Its build is .clusterfuzzlite/build.sh's coverage
    build, which tools/test.sh's OSS-Fuzz emulation has just made: nothing is
    compiled again."""

    def test_report_and_summary(self):
        root = os.path.dirname(HERE)
        with tempfile.TemporaryDirectory() as d:
            kept = os.path.join(d, "fuzz", "pure_fuzz", "corpus")
            os.makedirs(kept)
            shutil.copy(os.path.join(root, "fuzz", "corpus", "pure_fuzz", "seed-generation-edges"),
                        os.path.join(kept, "kept-1"))
            out = os.path.join(d, "cov")
            r = subprocess.run([os.path.join(HERE, "coverage.sh"),
                                "--corpus=" + os.path.join(d, "fuzz"), "--out=" + out,
                                "--targets=pure_fuzz"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(r.returncode, 0, r.stderr[-3000:])
            lines = r.stdout.splitlines()
            core = [m for m in map(LINE_RE.match, lines) if m and m.group(1) == "core/"]
            self.assertEqual(len(core), 1, r.stdout)
            m = core[0]
            covered, count = int(m.group(3)), int(m.group(4))
            self.assertTrue(0 < covered <= count, m.group(0))
            self.assertAlmostEqual(float(m.group(2)), 100.0 * covered / count, delta=0.051)
            self.assertTrue(os.path.isfile(os.path.join(out, "index.html")))
            self.assertTrue(os.path.islink(out))
            with open(os.path.join(out, "summary.txt")) as f:
                self.assertEqual(f.read().splitlines(), [l for l in lines if LINE_RE.match(l)])
            committed = sum(len(files) for sub in ("corpus", "regressions")
                            for _, _, files in os.walk(os.path.join(root, "fuzz", sub, "pure_fuzz")))
            self.assertIn(f"pure_fuzz: {committed + 1} input(s)", r.stderr)  # + the kept one
            self.assertIn("coverage: building 1 target(s)", r.stderr)
            # A second run replaces the report whole; the first one's directory goes.
            first = os.readlink(out)
            r = subprocess.run([os.path.join(HERE, "coverage.sh"),
                                "--corpus=" + os.path.join(d, "fuzz"), "--out=" + out,
                                "--targets=pure_fuzz"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(r.returncode, 0, r.stderr[-3000:])
            self.assertNotEqual(os.readlink(out), first)
            self.assertFalse(os.path.exists(os.path.join(d, first)))
            self.assertEqual([n for n in os.listdir(d) if n.startswith(".coverage")],
                             [os.readlink(out)])

    def test_an_unknown_target_is_exit_2_naming_it(self):
        r = subprocess.run([os.path.join(HERE, "coverage.sh"), "--targets=pure_fuzz,no_such_fuzz"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(r.returncode, 2, r.stderr[-3000:])
        self.assertIn("'no_such_fuzz' is no fuzz target", r.stderr)


if __name__ == "__main__":
    if "--run-script" in sys.argv:
        sys.argv.remove("--run-script")
    else:
        del ScriptTest
    unittest.main()
