#!/usr/bin/env python3
"""Unit tests of upstream/same_code.py on small fabricated kernel files: what
it sets aside (line markers, comments, a profile's names) and what it must
not (one token of one body)."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import same_code as sc  # noqa: E402

KERNEL = """\
// SPDX-License-Identifier: fabricated
#include "hfi.h"

static int reserve(struct hfi1_ctxtdata *rcd, int last)
{
	if (last < 0)
		return -1;
	return last;
}

int release(struct hfi1_ctxtdata *rcd, int idx)
{
	return reserve(rcd, idx);
}
"""

SPECS = """\
reserve | static int reserve(struct hfi1_ctxtdata *rcd, int last) |
release | int release(struct hfi1_ctxtdata *rcd, int idx) |
"""

# A driver that spells the context hfi9_ctxtdata and lives in hfi9/.
PROFILE = """\
name hfi9
dir drivers/infiniband/hw/hfi9
mapped hfi9
map hfi9_ctxtdata hfi1_ctxtdata
"""


class SameCode(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_tool(self, tree_text, profile=None):
        args = [sys.executable, os.path.join(HERE, "same_code.py"),
                "--base=" + self.write("base.c", KERNEL),
                "--tree=" + self.write("tree.c", tree_text),
                "--functions=" + self.write("functions.txt", SPECS)]
        if profile:
            args.append("--profile=" + self.write("hfi9.profile", profile))
        return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def test_the_same_text_is_the_same_code(self):
        r = self.run_tool(KERNEL)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("its 2 functions are", r.stdout)

    def test_moved_lines_and_comments_are_the_same_code(self):
        moved = KERNEL.replace('#include "hfi.h"\n', '#include "hfi.h"\n/* a new comment */\n\n\n')
        r = self.run_tool(moved)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_a_profiles_names_are_the_same_code(self):
        renamed = KERNEL.replace("hfi1_ctxtdata", "hfi9_ctxtdata")
        r = self.run_tool(renamed, profile=PROFILE)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_one_changed_token_differs_and_names_its_function(self):
        changed = KERNEL.replace("if (last < 0)", "if (last <= 0)")
        r = self.run_tool(changed)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("differs", r.stdout)
        self.assertIn("reserve", r.stdout)
        self.assertNotIn("release", r.stdout)

    def test_a_missing_function_is_exit_2_naming_it(self):
        r = self.run_tool(KERNEL.replace("int release(", "int released("))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("release", r.stderr)

    def test_normalized_parts_split_per_function(self):
        unit = sc.ek.extract(KERNEL, sc.ek.parse_functions(SPECS), display="k.c")
        parts = sc.normalized_parts(unit)
        self.assertEqual(list(parts), ["(unit)", "reserve", "release"])
        self.assertNotIn("#line", "".join(parts.values()))


if __name__ == "__main__":
    unittest.main()
