#!/usr/bin/env python3
"""Tests of tools/timeline.py.

  python3 tools/timeline_test.py                  a hand-made trace, checked exactly
  python3 tools/timeline_test.py --bin=PATH       also end to end with a sched_examples
                                                  binary (bazel test //tools:timeline_test)

The page must parse as XML and as HTML, have a lane per thread, a bar per
lock held (in the right columns, coloured by class, with a legend), the
state after every step, the failure marker at the failing step, and no
http(s) reference at all.
"""

import html.parser
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
import timeline  # noqa: E402

BIN = None
for _a in list(sys.argv[1:]):
    if _a.startswith("--bin="):
        BIN = os.path.abspath(_a[len("--bin="):])
        sys.argv.remove(_a)


def step(i, thread, kind, chosen, held, state, lock="", label=""):
    return {"step": i, "thread": thread, "kind": kind, "label": label, "lock": lock,
            "chosen": chosen, "runnable": "0x3", "held": held, "state": state}


# Two threads; "a" takes &x->a during steps 1-3 and &x->b inside it during
# step 2; "b" holds &x->b during step 4; the report fires after step 4.
TRACE = {
    "format": "flowcheck-trace 1", "scenario": "hand_made", "params": {"ops.0": "p,q"},
    "trace_hash": "0123456789abcdef",
    "threads": [{"id": 0, "name": "a", "interrupts": -1}, {"id": 1, "name": "b", "interrupts": -1}],
    "initial": {"held": [[], []], "state": {"flow_mask": "0x0"}},
    "steps": [
        step(0, -1, "start", 0, [[], []], {"flow_mask": "0x0"}),
        step(1, 0, "lock", 0, [["&x->a"], []], {"flow_mask": "0x1"}, lock="&x->a"),
        step(2, 0, "lock", 0, [["&x->a", "&x->b"], []], {"flow_mask": "0x1"}, lock="&x->b"),
        step(3, 0, "unlock", 1, [["&x->a"], []], {"flow_mask": "0x3", "queues": {"flow": "qp1"}},
             lock="&x->b"),
        step(4, 1, "lock", 1, [["&x->a"], ["&x->b"]], {"flow_mask": "0x3"}, lock="&x->b"),
    ],
    "failure": {"kind": "check", "line": "thread 7 \"b\": flow_mask <is> & wrong", "after_step": 4,
                "thread": 1},
}


def check_page(test, page, nthreads):
    """What every page must satisfy; returns the parsed tree."""
    test.assertNotIn("http", page.lower())
    root = ET.fromstring(page.split("\n", 1)[1])  # after <!DOCTYPE html>
    html.parser.HTMLParser().feed(page)
    svg = root.find(".//svg")
    test.assertIsNotNone(svg)
    lanes = [g for g in svg.iter("g") if g.get("class") == "lane"]
    test.assertEqual(sorted(int(g.get("data-thread")) for g in lanes), list(range(nthreads)))
    markers = [g for g in svg.iter("g") if g.get("class") == "failure-marker"]
    test.assertEqual(len(markers), 1)
    test.assertIn("FAIL [", "".join(markers[0].itertext()))
    return root


def bars(root):
    return [(int(r.get("data-thread")), r.get("data-lock"), int(r.get("x")), int(r.get("width")),
             r.get("fill")) for r in root.iter("rect") if r.get("class") == "lock-bar"]


class HandMade(unittest.TestCase):
    def test_page(self):
        page = timeline.render(TRACE)
        root = check_page(self, page, 2)
        col, x0 = timeline.COL, timeline.LABEL_W
        got = bars(root)
        colours = {lock: fill for _, lock, _, _, fill in got}
        self.assertEqual(len(set(colours.values())), 2, got)
        self.assertEqual(sorted(got), sorted([
            (0, "&x->a", x0 + 1 * col + 1, 4 * col - 2, colours["&x->a"]),
            (0, "&x->b", x0 + 2 * col + 1, 1 * col - 2, colours["&x->b"]),
            (1, "&x->b", x0 + 4 * col + 1, 1 * col - 2, colours["&x->b"]),
        ]))
        legend = "".join(root.find(".//*[@class='legend']").itertext())
        self.assertIn("&x->a", legend)
        self.assertIn("&x->b", legend)
        marker = [g for g in root.iter("g") if g.get("class") == "failure-marker"][0]
        self.assertEqual(marker.get("data-step"), "4")
        self.assertEqual(marker.find("line").get("x1"), str(x0 + 5 * col))
        self.assertIn('flow_mask <is> & wrong', "".join(marker.itertext()))
        cells = [r.get("class") for r in root.iter("rect") if "state" in (r.get("class") or "")]
        self.assertEqual(cells, ["state state-same", "state state-changed", "state state-same",
                                 "state state-changed", "state state-changed"])
        rows = root.findall(".//table/tr")
        self.assertEqual(len(rows), 1 + len(TRACE["steps"]))
        self.assertIn("queues={flow=qp1}", "".join(rows[4].itertext()))
        self.assertEqual(rows[5].get("class"), "failing")

    def test_cli(self):
        with tempfile.TemporaryDirectory() as d:
            trace = os.path.join(d, "t.json")
            with open(trace, "w") as f:
                json.dump(TRACE, f)
            out = os.path.join(d, "t.html")
            r = subprocess.run([sys.executable, os.path.join(TOOLS, "timeline.py"), trace, out],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.strip(), f"flowcheck: timeline written: {out}")
            self.assertEqual(sorted(os.listdir(d)), ["t.html", "t.json"])  # no temporary left
            bad = os.path.join(d, "bad.json")
            with open(bad, "w") as f:
                f.write('{"format": "something else"}')
            r = subprocess.run([sys.executable, os.path.join(TOOLS, "timeline.py"), bad, out],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 2)
            self.assertIn("not a flowcheck trace", r.stderr)
            r = subprocess.run([sys.executable, os.path.join(TOOLS, "timeline.py"), trace,
                                "/nonexistent-flowcheck/t.html"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 3)
            self.assertIn("cannot write /nonexistent-flowcheck/t.html", r.stderr)


@unittest.skipIf(BIN is None, "no --bin=sched_examples")
class EndToEnd(unittest.TestCase):
    """A failing example scenario replayed with --trace_out, then drawn."""

    def run_bin(self, *args):
        return subprocess.run([BIN, *args], capture_output=True, text=True)

    def test_bitmap_ops_failure(self):
        with tempfile.TemporaryDirectory() as d:
            found = self.run_bin("--scenario=bitmap_ops", "--param=ops.0=alloc_split,nop",
                                 "--param=ops.1=alloc,free", "--param=ops.2=nop",
                                 "--strategy=pct", "--seed=1", "--quiet", f"--schedule_out={d}/")
            self.assertEqual(found.returncode, 1, found.stderr)
            prefix = "flowcheck: schedule written: "
            schedule = [line[len(prefix):] for line in found.stderr.splitlines()
                        if line.startswith(prefix)][0]
            trace = os.path.join(d, "t.json")
            replay = self.run_bin(f"--replay={schedule}", f"--trace_out={trace}")
            self.assertEqual(replay.returncode, 1, replay.stderr)
            self.assertIn(f"flowcheck: trace written: {trace}", replay.stderr)
            with open(trace) as f:
                t = json.load(f)
            with open(schedule) as f:
                decisions = int([line.split()[1] for line in f if line.startswith("decisions ")][0])
            self.assertEqual(len(t["steps"]), decisions)
            self.assertEqual(t["failure"]["kind"], "check")
            self.assertEqual(t["failure"]["after_step"], decisions - 1)
            self.assertTrue(all(len(s["held"]) == 4 for s in t["steps"]))
            self.assertTrue(all(isinstance(s["state"], dict) and "mask" in s["state"]
                                for s in t["steps"]))
            out = os.path.join(d, "t.html")
            r = subprocess.run([sys.executable, os.path.join(TOOLS, "timeline.py"), trace, out],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                page = f.read()
            root = check_page(self, page, 4)
            got = bars(root)
            self.assertTrue(got)
            self.assertEqual({lock for _, lock, _, _, _ in got}, {"&b->lock"})
            # Every step where a thread held the lock has its bar.
            held_steps = sum(1 for s in t["steps"] for h in s["held"] if h)
            self.assertEqual(sum(w + 2 for _, _, _, w, _ in got) // timeline.COL, held_steps)


if __name__ == "__main__":
    unittest.main()
