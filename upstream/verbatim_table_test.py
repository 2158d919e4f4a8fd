#!/usr/bin/env python3
"""Tests of upstream/verbatim_table.py.

  verbatim_table_test.py [TID_RDMA_C DOC]

On fabricated inputs always; given the real tid_rdma.c and docs/upstream.md
(upstream mode, //upstream:verbatim_table_test), also that the doc's table is
the one generated from that text.
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verbatim_table as vt  # noqa: E402

KERNEL = """\
static int alpha(int a)
{
	return a;
}

int beta(int b)
{
	if (b)
		return 1;
	return 0;
}

void gamma(void)
{
}
"""
FUNCTIONS = "alpha | static int alpha(int a) |\n"
PAGES = "beta | int beta(int b) |\n"
MODEL_ONLY = "gamma | model: core/x.cc | stands in\n"


def generated():
    return vt.table(KERNEL, FUNCTIONS, PAGES, MODEL_ONLY)


class FabricatedTest(unittest.TestCase):
    def test_counts_each_definition_and_the_verbatim_total(self):
        t = generated().splitlines()
        self.assertIn("| `alpha` | 4 | verbatim", t[2])
        self.assertIn("| `beta` | 6 | verbatim, as C", t[3])
        self.assertIn("| `gamma` | 3 | model (`core/x.cc`): stands in |", t[4])
        self.assertEqual(t[5], "| **verbatim: 2 functions** | **10** | model: 3 lines; not run: 0 lines |")

    def test_a_function_the_kernel_lacks_fails(self):
        with self.assertRaisesRegex(vt.ExtractError, "delta: 0 definitions"):
            vt.table(KERNEL, FUNCTIONS, PAGES, "delta | none | gone\n")

    def test_a_function_listed_twice_fails(self):
        with self.assertRaisesRegex(vt.ExtractError, "alpha: listed twice"):
            vt.table(KERNEL, FUNCTIONS, PAGES, "alpha | none | again\n")

    def test_bad_runs_field_fails(self):
        with self.assertRaisesRegex(vt.ExtractError, "runs must be"):
            vt.parse_model_only("gamma | sometimes | why\n")

    def test_check_and_write(self):
        with tempfile.TemporaryDirectory() as d:
            paths = {}
            for name, text in (("k.c", KERNEL), ("f.txt", FUNCTIONS), ("p.txt", PAGES),
                               ("m.txt", MODEL_ONLY)):
                paths[name] = os.path.join(d, name)
                with open(paths[name], "w") as f:
                    f.write(text)
            doc = os.path.join(d, "doc.md")
            with open(doc, "w") as f:
                f.write(f"intro\n{vt.BEGIN}\n| stale |\n{vt.END}\nafter\n")
            args = [f"--source={paths['k.c']}", f"--functions={paths['f.txt']}",
                    f"--pages={paths['p.txt']}", f"--model_only={paths['m.txt']}"]
            self.assertEqual(vt.main(args + [f"--check={doc}"]), 1)  # stale: fails
            self.assertEqual(vt.main(args + [f"--write={doc}"]), 0)
            self.assertEqual(vt.main(args + [f"--check={doc}"]), 0)
            with open(doc) as f:
                text = f.read()
            self.assertTrue(text.startswith("intro\n") and text.endswith(f"{vt.END}\nafter\n"))
            self.assertIn(generated(), text)

    def test_missing_markers_fail(self):
        with self.assertRaisesRegex(vt.ExtractError, "needs one"):
            vt.replace_between("no markers\n", generated(), "doc.md")


class RealTextTest(unittest.TestCase):
    source = doc = None

    def test_doc_table_matches_the_kernel_text(self):
        if not self.source:
            self.skipTest("no kernel text given (upstream mode passes it)")
        self.assertEqual(vt.main([f"--source={self.source}", f"--check={self.doc}"]), 0)


if __name__ == "__main__":
    if len(sys.argv) == 3:
        RealTextTest.source, RealTextTest.doc = sys.argv.pop(1), sys.argv.pop(1)
    unittest.main()
