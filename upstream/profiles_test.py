#!/usr/bin/env python3
"""Unit tests of the driver profiles (upstream/profiles/*.profile).

  profiles_test.py                     the profile format and the mapped
                                       extraction, on fabricated inputs
  profiles_test.py HFI1_TID_RDMA_C     also the hfi2-shaped generator's round
                                       trip on hfi1's real text
  profiles_test.py HFI1_TID_RDMA_C HFI2_TID_RDMA_C
                                       also: the real hfi2 text's 20 functions
                                       differ from hfi1's by exactly those
                                       changes (by hand; CI has no hfi2 tree)

Round trip: upstream/hfi2_shaped.py turns hfi1's tid_rdma.c into hfi2's
shape; the 20 extracted functions, mapped back through the hfi2 profile,
must equal hfi1's token for token except exactly the changes listed in
EXPECTED_CHANGES below (written here independently of the generator).
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import extract_kernel as ek  # noqa: E402
import hfi2_shaped  # noqa: E402

HFI1_TEXT = None  # set from argv
HFI2_TEXT = None  # set from argv (optional)


def read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


def profile(name):
    return ek.parse_profile(read(f"profiles/{name}.profile"), display=f"{name}.profile")


KERNEL = """\
static int reserve(struct hfi2_ctx *rcd, int last)
{
	if (last < 0)
		return -HFI2_ERR;
	return hfi2_helper_one(last);
}

static u32 width(struct hfi2_ctx *rcd, u16 w)
{
	return w;
}
"""

SPECS = """\
reserve | static int reserve(struct ctx *rcd, int last) |
width | static u32 width(struct ctx *rcd, u8 w) |
"""

PROFILE = """\
name fab
dir drivers/fab
mapped hfi2 HFI2
map hfi2_ctx ctx
map HFI2_ERR ERR
map hfi2_helper_* helper_*
decl width | static u32 width(struct ctx *rcd, u16 w) |
"""


class Format(unittest.TestCase):
    def test_both_profiles_parse(self):
        hfi1, hfi2 = profile("hfi1"), profile("hfi2")
        self.assertEqual((hfi1.name, hfi1.directory), ("hfi1", "drivers/infiniband/hw/hfi1"))
        self.assertEqual((hfi2.name, hfi2.directory), ("hfi2", "drivers/infiniband/hw/hfi2"))
        self.assertEqual(hfi1.to_harness("hfi1_ctxtdata"), "hfi1_ctxtdata")

    def test_hfi2_maps_exact_names_and_families_both_ways(self):
        p = profile("hfi2")
        for driver, harness in [("hfi2_ctxtdata", "hfi1_ctxtdata"),
                                ("HFI2_S_WAIT_TID_SPACE", "HFI1_S_WAIT_TID_SPACE"),
                                ("hfi2_kern_setup_hw_flow", "hfi1_kern_setup_hw_flow"),
                                ("trace_hfi2_qpsleep", "trace_hfi1_qpsleep"),
                                ("hfi2_wq", "hfi1_wq")]:
            self.assertEqual(p.to_harness(driver), harness)
            self.assertEqual(p.to_driver(harness), driver)
        self.assertEqual(p.to_harness("kern_reserve_flow"), "kern_reserve_flow")
        self.assertTrue(p.unmapped("HFI2_QP_WQE_INVALID"))
        self.assertFalse(p.unmapped("hfi2_kern_anything"))

    def test_bad_lines_name_the_line(self):
        for text, msg in [("name x\ndir d\nfrobnicate y\n", "p:3: expected"),
                          ("name x\ndir d\nmap a_* b\n", "both or neither"),
                          ("name x\ndir d\nmap a b\nmap a c\n", "a mapped twice"),
                          ("name x\n", "needs a 'name' and a 'dir'"),
                          ("name x\ndir d\ndecl f | a |\ndecl f | b |\n",
                           "p:4: decl f given twice")]:
            with self.assertRaises(ek.ProfileError) as c:
                ek.parse_profile(text, display="p")
            self.assertIn(msg, str(c.exception))


class MappedExtraction(unittest.TestCase):
    def run_extract(self, kernel=KERNEL, prof=PROFILE):
        return ek.extract(kernel, ek.parse_functions(SPECS), display="k.c",
                          profile=ek.parse_profile(prof, display="fab.profile"))

    def test_text_verbatim_names_mapped_by_defines(self):
        out = self.run_extract()
        self.assertIn("static int reserve(struct hfi2_ctx *rcd, int last)\n{\n", out)
        for line in ["#define hfi2_ctx ctx", "#define HFI2_ERR ERR",
                     "#define hfi2_helper_one helper_one", "#undef hfi2_ctx"]:
            self.assertIn(line + "\n", out)
        self.assertLess(out.index("#define hfi2_ctx ctx"), out.index("static int reserve"))
        self.assertLess(out.index("static u32 width"), out.index("#undef hfi2_ctx"))

    def test_decl_line_replaces_the_declaration_expected(self):
        without = "\n".join(l for l in PROFILE.splitlines() if not l.startswith("decl"))
        with self.assertRaises(ek.ExtractError) as c:
            self.run_extract(prof=without)
        self.assertIn("width: declaration changed at 'u16' (expected 'u8')", str(c.exception))

    def test_a_decl_line_must_name_its_function(self):
        with self.assertRaises(ek.ExtractError) as c:
            self.run_extract(prof=PROFILE + "decl reserve | static int other(int x) |\n")
        self.assertIn("fab.profile:8: decl reserve: its declaration does not name it",
                      str(c.exception))

    def test_an_unmapped_driver_name_fails_naming_it(self):
        with self.assertRaises(ek.ExtractError) as c:
            self.run_extract(kernel=KERNEL.replace("-HFI2_ERR", "-HFI2_OTHER"))
        self.assertIn("reserve: 'HFI2_OTHER' is not in profile fab's name map", str(c.exception))

    def test_a_function_is_searched_under_the_drivers_name(self):
        kernel = KERNEL.replace("static int reserve(", "static int hfi2_helper_reserve(")
        specs = SPECS.replace("reserve", "helper_reserve")
        out = ek.extract(kernel, ek.parse_functions(specs), display="k.c",
                         profile=ek.parse_profile(PROFILE, display="fab.profile"))
        self.assertIn("#define hfi2_helper_reserve helper_reserve\n", out)
        self.assertIn("#define helper_reserve upstream_helper_reserve\n", out)

    def test_no_profile_is_hfi1_unchanged(self):
        out = ek.extract(KERNEL.replace("hfi2_", "").replace("HFI2_", ""),
                         ek.parse_functions(SPECS.replace("u8 w", "u16 w")), display="k.c")
        self.assertNotIn("Profile", out)


# hfi1 -> hfi2 in the covered functions, in hfi1's names: each function's
# token text (tokens joined by one space) with these replacements applied,
# each found exactly once, must be hfi2's.
def _t(text):
    return " ".join(ek.tokens(text))


EXPECTED_CHANGES = {
    "kern_set_hw_flow": [(_t("rcd->ctxt, RCV_TID_FLOW_TABLE + 8"),
                          _t("rcd->ctxt, rcd->dd->params->rcv_tid_flow_table_reg + 8"))],
    "read_r_next_psn": [(_t("u8 ctxt"), _t("u16 ctxt")),
                        (_t("ctxt, RCV_TID_FLOW_TABLE + (8"),
                         _t("ctxt, dd->params->rcv_tid_flow_table_reg + (8"))],
    "tid_rdma_schedule_tid_wakeup": [
        (_t("struct hfi1_ibport *ibp; struct hfi1_pportdata *ppd;"), ""),
        (_t("ibp = to_iport(qp->ibqp.device, qp->port_num); ppd = ppd_from_ibp(ibp);"), ""),
        (_t("ppd->hfi1_wq"), _t("dd->hfi1_wq"))],
    "hfi1_tid_rdma_flush_wait": [(_t("qp->priv; _tid_rdma_flush_wait"),
                                  _t("qp->priv; if (!priv->rcd) return; _tid_rdma_flush_wait"))],
}


def apply_changes(joined, replacements):
    for old, new in replacements:
        assert joined.count(old) == 1, f"'{old}' is not in the text exactly once"
        joined = joined.replace(old, new)
    return " ".join(joined.split())


def functions(text, prof):
    """harness name -> (the function's text, its tokens in the harness's names)."""
    lines = text.splitlines()
    out = {}
    for spec in ek.apply_decls(prof, ek.parse_functions(read("functions.txt"))):
        (start, _, end), = ek.find_definitions(prof.to_driver(spec.name), lines, "t.c")
        body = "\n".join(lines[start:end + 1])
        out[spec.name] = (body, prof.map_tokens(ek.tokens(body)))
    return out


@unittest.skipIf(len(sys.argv) < 2, "no hfi1 tid_rdma.c given")
class RoundTrip(unittest.TestCase):
    def setUp(self):
        self.hfi2 = profile("hfi2")
        self.generated = hfi2_shaped.generate(HFI1_TEXT, self.hfi2)

    def test_mapped_back_equals_hfi1_but_for_the_listed_changes(self):
        hfi1 = functions(HFI1_TEXT, ek.Profile())
        hfi2 = functions(self.generated, self.hfi2)
        self.assertEqual(len(hfi2), 37)
        for name, (_, toks) in hfi1.items():
            with self.subTest(function=name):
                want = apply_changes(" ".join(toks), EXPECTED_CHANGES.get(name, []))
                self.assertEqual(" ".join(hfi2[name][1]), want)

    def test_the_covered_functions_use_no_hfi1_name(self):
        for name, (body, _) in functions(self.generated, self.hfi2).items():
            left = [t for t in ek.tokens(body) if "hfi1" in t.lower()]
            self.assertEqual(left, [], name)

    def test_the_generated_text_extracts_with_the_hfi2_profile(self):
        out = ek.extract(self.generated, ek.parse_functions(read("functions.txt")),
                         display="drivers/infiniband/hw/hfi2/tid_rdma.c", profile=self.hfi2)
        self.assertIn("\tif (!priv->rcd)\n\t\treturn;\n", out)
        self.assertIn("#define hfi2_wq hfi1_wq\n", out)

    def test_a_change_that_no_longer_matches_fails(self):
        broken = HFI1_TEXT.replace("RCV_TID_FLOW_TABLE + 8 * flow_idx", "RCV_TID_FLOW_TABLE+8*flow_idx")
        with self.assertRaises(hfi2_shaped.ShapeError) as c:
            hfi2_shaped.generate(broken, self.hfi2)
        self.assertIn("has 0 copies", str(c.exception))


@unittest.skipIf(len(sys.argv) < 3, "no hfi2 tid_rdma.c given")
class RealHfi2(unittest.TestCase):
    def test_real_hfi2_is_hfi1_but_for_the_listed_changes(self):
        hfi2 = profile("hfi2")
        want = functions(HFI1_TEXT, ek.Profile())
        have = functions(HFI2_TEXT, hfi2)
        generated = functions(hfi2_shaped.generate(HFI1_TEXT, hfi2), hfi2)
        for name, (_, toks) in want.items():
            with self.subTest(function=name):
                self.assertEqual(" ".join(have[name][1]),
                                 apply_changes(" ".join(toks), EXPECTED_CHANGES.get(name, [])))
                self.assertEqual(have[name][1], generated[name][1])


if __name__ == "__main__":
    # The skipIf conditions above read sys.argv at import; the texts are read
    # here and unittest gets no extra arguments.
    texts = []
    for path in sys.argv[1:3]:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            texts.append(f.read())
    HFI1_TEXT = texts[0] if texts else None
    HFI2_TEXT = texts[1] if len(texts) > 1 else None
    unittest.main(argv=sys.argv[:1])
