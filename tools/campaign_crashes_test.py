"""Crash deduplication end to end, with the stand-ins of campaign_fixture.py:
the fake fuzzer writes crash files whose replay prints fabricated failure
reports (signature_test.py's), and the campaign must show one row per
signature with its count, keep only the first file of each and count the
rest in OUT/fuzz/T/signatures.json. Run by campaign_test.py (which loads this
class) or on its own.
"""

import json
import os
import sys
import unittest

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
from campaign_fixture import CampaignFixture  # noqa: E402
from signature_test import ASAN, R1  # noqa: E402

R1_SIG = "invariant W5 upstream divergence [R-1]"
ORACLE = "flowcheck: FAIL [oracle] pure_fuzz op #{op} register(gen=0x{g})\n"
ORACLE_SIG = "oracle @ register"
ASAN_SIG = "asan heap-use-after-free @ kern_reserve_flow"


class CrashSignaturesTest(CampaignFixture):
    def crashes(self):
        return os.path.join(self.out, "fuzz", "pure_fuzz", "crashes")

    def strict_campaign(self, reports):
        path = os.path.join(self.tmp, "reports.json")
        with open(path, "w") as f:
            json.dump(reports, f)
        return self.campaign("--seconds=1", "--targets=pure_fuzz", "--no-stress",
                             f"--out={self.out}", FAKE_FUZZER_CRASHES=path,
                             FLOWCHECK_FUZZ_STRICT="1")

    def test_one_row_per_signature_with_its_count_and_only_the_first_file_kept(self):
        reports = ([R1.format(sha=i, op=i, qp=i % 3, n=i + 1) for i in range(4)]
                   + [ORACLE.format(op=i, g=i) for i in range(2)]
                   + [ASAN.format(addr="60200000", size=4, line=55)])
        rc, out = self.strict_campaign(reports)
        self.assertEqual(rc, 1, out)
        s = self.summary()
        fuzz = s["fuzz"][0]
        self.assertEqual(fuzz["crash_files"], 7)
        rows = [(r["signature"], r["count"], r["total"]) for r in fuzz["signatures"]]
        self.assertEqual(rows, [(R1_SIG, 4, 4), (ORACLE_SIG, 2, 2), (ASAN_SIG, 1, 1)])
        kept = sorted(os.listdir(self.crashes()))
        self.assertEqual(kept, sorted(os.path.basename(r["first"]) for r in fuzz["signatures"]))
        self.assertEqual(fuzz["crashes"], [r["first"] for r in fuzz["signatures"]])
        self.assertEqual([(r["target"], r["signature"]) for r in s["signatures"]],
                         [("pure_fuzz", sig) for sig, _, _ in rows])
        for sig, count, _ in rows:  # each once in the text, with its count
            lines = [l for l in out.splitlines() if l.endswith(f"pure_fuzz: {sig}")]
            self.assertEqual(len(lines), 1, out)
            self.assertEqual(lines[0].split()[0], str(count), out)
        first = next(r["first"] for r in fuzz["signatures"] if r["signature"] == R1_SIG)
        self.assertIn(f"reproduce: {ROOT_REPRODUCE} --strict {first}", out)
        with open(os.path.join(self.out, "fuzz", "pure_fuzz", "signatures.json")) as f:
            index = json.load(f)["signatures"]
        self.assertEqual({k: len(v["files"]) for k, v in index.items()},
                         {R1_SIG: 4, ORACLE_SIG: 2, ASAN_SIG: 1})

        # The next run finds the same inputs again and one more: a file
        # already counted is not counted twice; still one file per signature.
        rc, out = self.strict_campaign(reports + [R1.format(sha=9, op=9, qp=1, n=9)])
        self.assertEqual(rc, 1, out)
        totals = {r["signature"]: r["total"] for r in self.summary()["fuzz"][0]["signatures"]}
        self.assertEqual(totals, {R1_SIG: 5, ORACLE_SIG: 2, ASAN_SIG: 1})
        self.assertEqual(sorted(os.listdir(self.crashes())), kept)

    def test_an_unreadable_index_is_an_error_naming_it(self):
        index = os.path.join(self.out, "fuzz", "pure_fuzz", "signatures.json")
        os.makedirs(os.path.dirname(index))
        with open(index, "w") as f:
            f.write("{")
        rc, out = self.campaign("--seconds=1", "--targets=pure_fuzz", "--no-stress",
                                f"--out={self.out}")
        self.assertEqual(rc, 1, out)
        self.assertIn(f"[campaign] cannot read {index}: ", out)


ROOT_REPRODUCE = os.path.join(os.path.dirname(TOOLS), "tools", "reproduce.sh")

if __name__ == "__main__":
    unittest.main()
