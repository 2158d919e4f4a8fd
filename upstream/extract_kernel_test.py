#!/usr/bin/env python3
"""Unit tests of upstream/extract_kernel.py on small fabricated kernel files."""

import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extract_kernel as ek  # noqa: E402

KERNEL = """\
// SPDX-License-Identifier: fabricated
#include "hfi.h"

static void helper(int x);

/* a comment naming reserve(int) in column 0 is not a definition */
static int reserve(struct ctx *rcd, int last)
	__must_hold(&rcd->lock)
{
	if (last < 0)
		return -1;
	return last;
}

int release(struct ctx *rcd, int idx)
{
	{
		int nested = idx;
	}
	return reserve(rcd, idx);
}

static void helper(int x)
{
}
"""

SPECS = """\
# fabricated
reserve | static int reserve(struct ctx *rcd, int last) __must_hold(&rcd->lock) |
release | int release(struct ctx *rcd, int idx) |
"""


def run(source=KERNEL, specs=SPECS, **kw):
    return ek.extract(source, ek.parse_functions(specs), display="k.c", **kw)


class Found(unittest.TestCase):
    def test_copies_each_body_verbatim_with_a_line_marker(self):
        out = run()
        self.assertIn('#line 7 "k.c"\nstatic int reserve(struct ctx *rcd, int last)\n'
                      '\t__must_hold(&rcd->lock)\n{\n\tif (last < 0)\n\t\treturn -1;\n'
                      '\treturn last;\n}\n', out)
        # The inner braces (indented) do not end the body; the column-0 one does.
        self.assertIn('#line 15 "k.c"\nint release(struct ctx *rcd, int idx)\n{\n\t{\n'
                      '\t\tint nested = idx;\n\t}\n\treturn reserve(rcd, idx);\n}\n', out)
        self.assertNotIn("helper", out)

    def test_line_markers_return_to_the_generated_file(self):
        out = run(out_name="gen.cc").split("\n")
        for i, line in enumerate(out):
            if line.startswith('#line ') and line.endswith('"gen.cc"'):
                self.assertEqual(int(line.split()[1]), i + 2, line)

    def test_source_info_and_prelude_and_trampolines(self):
        out = run(source_info="package: linux-source-6.1 6.1.0-1\n")
        self.assertIn("// Kernel source: package: linux-source-6.1 6.1.0-1", out)
        self.assertLess(out.index('#include "upstream/shim/prelude.h"'), out.index("static int"))
        self.assertTrue(out.rstrip().endswith('#include "upstream/trampolines.h"'))

    def test_emits_in_kernel_order_whatever_the_list_order(self):
        specs = "\n".join(reversed(SPECS.strip().split("\n")[1:]))
        out = run(specs=specs)
        self.assertLess(out.index("static int reserve"), out.index("int release"))


class StaticRenamed(unittest.TestCase):
    def test_every_function_is_renamed_around_its_text_and_released_after(self):
        out = run()
        for name in ("reserve", "release"):
            define = f"#define {name} upstream_{name}"
            self.assertIn(define, out)
            self.assertLess(out.index(define), out.index(f"int {name}("))
            self.assertGreater(out.index(f"#undef {name}"), out.index("return reserve(rcd, idx);"))
        self.assertIn("reserve (static in the kernel)", out)
        self.assertIn("release (extern in the kernel)", out)

    def test_static_or_not_is_not_a_change_of_shape(self):
        specs = SPECS.replace("| static int reserve", "| int reserve")
        run(specs=specs)  # no error

    def test_the_renamed_unit_compiles_and_links_to_core_style_names(self):
        # The kernel's static function, renamed by the preprocessor, is
        # reachable only through a trampoline under its own name.
        kernel = "static int twice(int x)\n{\n\treturn 2 * x;\n}\n"
        specs = "twice | static int twice(int x) |\n"
        text = ek.extract(kernel, ek.parse_functions(specs), display="k.c")
        text = text.replace('#include "upstream/shim/prelude.h"', "")
        text = text.replace('#include "upstream/trampolines.h"',
                            "int twice(int x) { return upstream_twice(x); }\n"
                            "int main() { return twice(21) == 42 ? 0 : 1; }")
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "t.cc")
            with open(src, "w") as f:
                f.write(text)
            cc = subprocess.run(["clang++-14", "-Wall", "-Werror", src, "-o", os.path.join(d, "t")],
                                capture_output=True, text=True)
            self.assertEqual(cc.returncode, 0, cc.stderr)
            self.assertEqual(subprocess.run([os.path.join(d, "t")]).returncode, 0)


class Apis(unittest.TestCase):
    """--apis: calls of APIs the shims lack fail; version-dependent shims are
    included by what the text calls."""

    APIS = ("reserve_helper | prelude\n"
            "get_random_u32 | upstream/shim/api/get_random_u32.h\n"
            "prandom_u32 | upstream/shim/api/prandom_u32.h\n")
    SPECS = "gen | static u32 gen(struct ctx *rcd) |\n"

    def kernel(self, call):
        return ("static u32 gen(struct ctx *rcd)\n{\n\tif (rcd)\n\t\treserve_helper(rcd);\n"
                f"\t/* helper_in_a_comment(x) */\n\treturn {call}();\n}}\n")

    def extract(self, call):
        return run(source=self.kernel(call), specs=self.SPECS,
                   apis=ek.parse_apis(self.APIS), apis_display="apis.txt")

    def test_the_shim_of_the_spelling_the_text_uses_is_included(self):
        new = self.extract("get_random_u32")
        self.assertIn('#include "upstream/shim/api/get_random_u32.h"', new)
        self.assertNotIn("prandom_u32.h", new)
        old = self.extract("prandom_u32")
        self.assertIn('#include "upstream/shim/api/prandom_u32.h"', old)
        self.assertNotIn("get_random_u32.h", old)
        self.assertLess(old.index("prelude.h"), old.index("prandom_u32.h"))
        self.assertLess(old.index("prandom_u32.h"), old.index("static u32 gen"))

    def test_a_call_no_shim_provides_fails_with_one_line_naming_it(self):
        with self.assertRaises(ek.ExtractError) as e:
            self.extract("get_random_u64")
        msg = str(e.exception)
        self.assertEqual(msg.count("\n"), 0)
        self.assertEqual(msg, "k.c:6: gen calls get_random_u64, which no shim provides: "
                              "add it to apis.txt (its header says how)")

    def test_without_apis_nothing_is_checked(self):
        run(source=self.kernel("get_random_u64"), specs=self.SPECS)  # no error

    def test_table_errors(self):
        with self.assertRaisesRegex(ek.ExtractError, "listed twice"):
            ek.parse_apis("a | prelude\na | prelude\n")
        with self.assertRaisesRegex(ek.ExtractError, "expected"):
            ek.parse_apis("a prelude\n")

    def test_the_committed_tables_cover_the_committed_function_lists(self):
        # Every API listed is a single identifier, and the two tables parse.
        here = os.path.dirname(os.path.abspath(__file__))
        for path in ("shim/apis.txt", "pages/apis.txt"):
            with open(os.path.join(here, path)) as f:
                self.assertTrue(ek.parse_apis(f.read(), display=path))


class ApisOnTheRealText(unittest.TestCase):
    """Given the kernel's tid_rdma.c (upstream mode): the committed function
    list and API table extract it, a text that spells the random helper as
    before 6.2 gets that shim, and an API no shim has fails naming it."""

    source = None

    def extract(self, text):
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "functions.txt")) as f:
            specs = ek.parse_functions(f.read())
        with open(os.path.join(here, "shim", "apis.txt")) as f:
            apis = ek.parse_apis(f.read())
        return ek.extract(text, specs, display="tid_rdma.c", apis=apis,
                          apis_display="upstream/shim/apis.txt")

    def setUp(self):
        if not self.source:
            self.skipTest("no kernel text given (upstream mode passes it)")
        with open(self.source, encoding="utf-8", errors="surrogateescape") as f:
            self.text = f.read()
        self.assertIn("get_random_u32()", self.text)

    def test_each_spelling_gets_its_shim(self):
        self.assertIn('#include "upstream/shim/api/get_random_u32.h"', self.extract(self.text))
        older = self.extract(self.text.replace("get_random_u32()", "prandom_u32()"))
        self.assertIn('#include "upstream/shim/api/prandom_u32.h"', older)
        self.assertNotIn("get_random_u32.h", older)

    def test_an_api_no_shim_has_is_one_line(self):
        with self.assertRaises(ek.ExtractError) as e:
            self.extract(self.text.replace("get_random_u32()", "get_random_u64()"))
        self.assertRegex(str(e.exception), r"^tid_rdma.c:\d+: hfi1_kern_init_ctxt_generations calls "
                                           r"get_random_u64, which no shim provides: add it to "
                                           r"upstream/shim/apis.txt")


class Missing(unittest.TestCase):
    def test_a_missing_function_names_itself(self):
        specs = SPECS + "gone | static void gone(void) |\n"
        with self.assertRaises(ek.ExtractError) as e:
            run(specs=specs)
        self.assertEqual(str(e.exception).count("\n"), 0)
        self.assertIn("k.c: gone: not found", str(e.exception))

    def test_a_prototype_alone_is_not_a_definition(self):
        specs = SPECS + "helper | static void helper(int x) |\n"
        run(specs=specs)  # found: the definition at the end
        kernel = KERNEL[:KERNEL.index("static void helper(int x)\n{")]
        with self.assertRaises(ek.ExtractError) as e:
            run(source=kernel, specs=specs)
        self.assertIn("helper: not found", str(e.exception))

    def test_a_body_not_closed_in_column_0(self):
        kernel = KERNEL.replace("\treturn last;\n}\n", "\treturn last;\n  }\n").split("int release")[0]
        with self.assertRaises(ek.ExtractError) as e:
            run(source=kernel, specs=SPECS.split("release |")[0])
        self.assertIn("reserve: no closing '}' in column 0", str(e.exception))

    def test_defined_twice(self):
        kernel = KERNEL + "\n#ifdef X\nint release(struct ctx *rcd, int idx)\n{\n\treturn 0;\n}\n#endif\n"
        with self.assertRaises(ek.ExtractError) as e:
            run(source=kernel)
        self.assertIn("release: defined 2 times (lines 15, ", str(e.exception))


class ChangedSignature(unittest.TestCase):
    def check(self, kernel, want):
        with self.assertRaises(ek.ExtractError) as e:
            run(source=kernel)
        msg = str(e.exception)
        self.assertEqual(msg.count("\n"), 0, msg)
        self.assertIn(want, msg)

    def test_a_parameter_type(self):
        self.check(KERNEL.replace("int release(struct ctx *rcd, int idx)",
                                  "int release(struct ctx *rcd, u8 idx)"),
                   "k.c: release: declaration changed at 'u8' (expected 'int'); the kernel now has: "
                   "int release(struct ctx *rcd, u8 idx)")

    def test_a_lost_annotation(self):
        self.check(KERNEL.replace("\t__must_hold(&rcd->lock)\n", ""),
                   "k.c: reserve: declaration changed at '<end>' (expected '__must_hold')")

    def test_an_added_parameter(self):
        self.check(KERNEL.replace("int release(struct ctx *rcd, int idx)",
                                  "int release(struct ctx *rcd, int idx, bool force)"),
                   "release: declaration changed at ',' (expected ')')")

    def test_whitespace_and_comments_do_not_matter(self):
        kernel = KERNEL.replace("static int reserve(struct ctx *rcd, int last)",
                                "static int reserve(struct ctx *rcd, /* preferred */\n\t\t   int last)")
        self.assertIn("/* preferred */", run(source=kernel))


class Redirections(unittest.TestCase):
    SPECS = SPECS.replace("__must_hold(&rcd->lock) |",
                          "__must_hold(&rcd->lock) | calls=audited_reserve, only_in=release")

    def test_calls_after_the_definition_go_to_the_wrapper(self):
        out = run(specs=self.SPECS)
        redirect = "#undef reserve\n#define reserve audited_reserve\n"
        self.assertIn(redirect, out)
        self.assertLess(out.index("\treturn last;\n}"), out.index(redirect))
        self.assertLess(out.index(redirect), out.index("int release("))

    def test_a_call_from_another_function_fails(self):
        kernel = KERNEL + "\nint other(struct ctx *rcd)\n{\n\treturn reserve(rcd, 0);\n}\n"
        specs = self.SPECS + "other | int other(struct ctx *rcd) |\n"
        with self.assertRaises(ek.ExtractError) as e:
            run(source=kernel, specs=specs)
        self.assertIn("reserve: now also called from other; its audited wrapper audited_reserve "
                      "assumes calls only from release", str(e.exception))

    def test_only_in_may_name_several_callers(self):
        kernel = KERNEL + "\nint other(struct ctx *rcd)\n{\n\treturn reserve(rcd, 0);\n}\n"
        specs = (self.SPECS.replace("only_in=release", "only_in=release+other") +
                 "other | int other(struct ctx *rcd) |\n")
        self.assertIn("#define other upstream_other", run(source=kernel, specs=specs))
        third = kernel + "\nint third(struct ctx *rcd)\n{\n\treturn reserve(rcd, 1);\n}\n"
        with self.assertRaises(ek.ExtractError) as e:
            run(source=third, specs=specs + "third | int third(struct ctx *rcd) |\n")
        self.assertIn("assumes calls only from release or other", str(e.exception))

    def test_a_call_before_the_definition_fails(self):
        specs = SPECS.replace("int release(struct ctx *rcd, int idx) |",
                              "int release(struct ctx *rcd, int idx) | calls=audited_release")
        kernel = KERNEL.replace("static void helper(int x)\n{\n}",
                                "static void helper(int x)\n{\n}\n\nint late(void)\n{\n\treturn 0;\n}")
        kernel = kernel.replace("\tif (last < 0)", "\tif (release(rcd, 0))")
        with self.assertRaises(ek.ExtractError) as e:
            run(source=kernel, specs=specs)
        self.assertIn("release: called from reserve before its definition", str(e.exception))

    def test_allow_wraps_only_that_function_in_a_pragma(self):
        specs = SPECS.replace("int release(struct ctx *rcd, int idx) |",
                              "int release(struct ctx *rcd, int idx) | allow=-Wfoo")
        out = run(specs=specs)
        push = out.index('#pragma clang diagnostic ignored "-Wfoo"')
        self.assertLess(out.index("\treturn last;\n}"), push)
        self.assertLess(push, out.index("int release("))
        self.assertLess(out.index("int release("), out.index("#pragma clang diagnostic pop"))


class FunctionsFile(unittest.TestCase):
    def test_bad_lines(self):
        for text, want in [("x | int y(void) |", "x: its declaration does not name it"),
                           ("x", "expected 'name | declaration | options'"),
                           ("x | int x(void) | bogus=1", "x: bad option 'bogus=1'"),
                           ("x | int x(void) | only_in=y", "only_in= needs calls="),
                           ("x | int x(void) |\nx | int x(void) |", "x: listed twice")]:
            with self.assertRaises(ek.ExtractError, msg=text) as e:
                ek.parse_functions(text)
            self.assertIn(want, str(e.exception))

    def test_the_real_list_parses(self):
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "functions.txt")
        with open(path) as f:
            specs = ek.parse_functions(f.read())
        self.assertEqual(len(specs), 37)


class CommandLine(unittest.TestCase):
    def test_failure_is_one_line_and_exit_1_and_no_output_file(self):
        with tempfile.TemporaryDirectory() as d:
            src, fns, out = (os.path.join(d, n) for n in ("k.c", "f.txt", "out.cc"))
            with open(src, "w") as f:
                f.write(KERNEL)
            with open(fns, "w") as f:
                f.write(SPECS + "gone | void gone(void) |\n")
            r = subprocess.run([sys.executable, ek.__file__, f"--source={src}", f"--functions={fns}",
                                f"--out={out}", "--display=k.c"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertEqual(r.stderr, "upstream: k.c: gone: not found (no definition of 'gone' "
                                       "with its braces in column 0)\n")
            self.assertEqual(sorted(os.listdir(d)), ["f.txt", "k.c"])  # no output, no temp file

    def test_success_writes_the_unit(self):
        with tempfile.TemporaryDirectory() as d:
            src, fns, out = (os.path.join(d, n) for n in ("k.c", "f.txt", "out.cc"))
            with open(src, "w") as f:
                f.write(KERNEL)
            with open(fns, "w") as f:
                f.write(SPECS)
            r = subprocess.run([sys.executable, ek.__file__, f"--source={src}", f"--functions={fns}",
                                f"--out={out}"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                self.assertIn("static int reserve(", f.read())
            self.assertEqual(sorted(os.listdir(d)), ["f.txt", "k.c", "out.cc"])

    def test_unwritable_output_names_the_path(self):
        with tempfile.TemporaryDirectory() as d:
            src, fns = (os.path.join(d, n) for n in ("k.c", "f.txt"))
            with open(src, "w") as f:
                f.write(KERNEL)
            with open(fns, "w") as f:
                f.write(SPECS)
            out = os.path.join(d, "no", "such", "dir", "out.cc")
            r = subprocess.run([sys.executable, ek.__file__, f"--source={src}", f"--functions={fns}",
                                f"--out={out}"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn(f"cannot write {out}: No such file or directory", r.stderr)


if __name__ == "__main__":
    if len(sys.argv) == 2 and not sys.argv[1].startswith("-"):
        ApisOnTheRealText.source = sys.argv.pop(1)
    unittest.main()
