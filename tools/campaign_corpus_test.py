"""Corpus management end to end, with the stand-ins of campaign_fixture.py:
--merge, --minimize, --seed_from, --no-resume, and ten SIGKILLs of
`campaign --merge` at random moments that never leave the kept corpus
missing or smaller than before. Run by campaign_test.py (which loads this
class) or on its own.
"""

import json
import os
import random
import shutil
import signal
import sys
import time
import unittest

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
from campaign_fixture import CampaignFixture  # noqa: E402
from flowcheck_tools.corpus import LiveCorpus  # noqa: E402


def put(directory, name, data):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def fill(directory, prefix, n):
    """n inputs b"PREFIX i" in directory; returns their contents."""
    for i in range(n):
        put(directory, f"{prefix}-{i}", b"%s %d" % (prefix.encode(), i))
    return {b"%s %d" % (prefix.encode(), i) for i in range(n)}


def contents(directory):
    """The inputs of a directory as a list of bytes (duplicates kept)."""
    out = []
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name), "rb") as f:
            out.append(f.read())
    return out


def committed(target):
    """The committed seeds and regressions of a target (merged in too)."""
    found = set()
    for sub in ("corpus", "regressions"):
        d = os.path.join(os.path.dirname(TOOLS), "fuzz", sub, target)
        if os.path.isdir(d):
            found |= set(contents(d))
    return found


def process_gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


class CorpusManagementTest(CampaignFixture):
    def setUp(self):
        super().setUp()
        self.argv_log = os.path.join(self.tmp, "fuzzer-argv.log")
        self.env["FAKE_FUZZER_ARGV_LOG"] = self.argv_log

    def fuzz_dir(self, target="pure_fuzz", *sub):
        return os.path.join(self.out, "fuzz", target, *sub)

    def fuzzer_calls(self):
        if not os.path.exists(self.argv_log):
            return []
        with open(self.argv_log) as f:
            return [json.loads(line) for line in f]

    def test_merge_adds_seed_from_and_leftover_new_finds_and_keeps_everything(self):
        kept = fill(self.fuzz_dir("pure_fuzz", "corpus"), "kept", 4)
        left = fill(self.fuzz_dir("pure_fuzz", "new"), "left by a killed run", 2)
        flat = os.path.join(self.tmp, "flat")
        seeds = fill(flat, "downloaded", 3) | {b"kept 0"}  # one the corpus holds
        put(flat, "redundant", b"redundant input")  # the merge finds it adds nothing
        rc, out = self.campaign("--merge", "--targets=pure_fuzz", f"--seed_from={flat}",
                                f"--out={self.out}")
        self.assertEqual(rc, 0, out)
        got = contents(self.fuzz_dir("pure_fuzz", "corpus"))
        self.assertEqual(sorted(got), sorted(kept | left | seeds | committed("pure_fuzz")), out)
        self.assertFalse(os.path.exists(self.fuzz_dir("pure_fuzz", "new")), "new/ not removed")
        self.assertIn(f"pure_fuzz: merged {len(got) - len(kept)} new input(s)", out)
        self.assertEqual([c for c in self.fuzzer_calls() if "-merge=1" not in c], [],
                         "--merge fuzzed")
        self.assertFalse(os.path.exists(self.fuzz_dir("flow_fuzz")), "--targets ignored")

    def test_the_merge_keeps_inputs_that_fail_only_in_strict_mode_and_writes_no_crash(self):
        flat = os.path.join(self.tmp, "flat")
        put(flat, "hazard", b"strict-crash: reaches a kernel hazard")
        rc, out = self.campaign("--merge", "--targets=pure_fuzz", f"--seed_from={flat}",
                                f"--out={self.out}", FLOWCHECK_FUZZ_STRICT="1")
        self.assertEqual(rc, 0, out)
        self.assertIn(b"strict-crash: reaches a kernel hazard",
                      contents(self.fuzz_dir("pure_fuzz", "corpus")))
        stray = [os.path.join(d, n) for d, _, names in os.walk(self.tmp) for n in names
                 if n.startswith("crash-")]
        self.assertEqual(stray, [])

    def test_a_seed_from_dir_with_per_target_subdirectories(self):
        dl = os.path.join(self.tmp, "download")
        pure = fill(os.path.join(dl, "pure_fuzz"), "pure", 2)
        flow = fill(os.path.join(dl, "flow_fuzz_fuzzer"), "flow", 3)
        fill(os.path.join(dl, "other_fuzzer"), "other", 1)
        rc, out = self.campaign("--merge", f"--seed_from={dl}", f"--out={self.out}")
        self.assertEqual(rc, 0, out)
        self.assertEqual(set(contents(self.fuzz_dir("pure_fuzz", "corpus"))),
                         pure | committed("pure_fuzz"))
        self.assertEqual(set(contents(self.fuzz_dir("flow_fuzz", "corpus"))),
                         flow | committed("flow_fuzz"))

    def test_bad_seed_from_dirs_are_one_line_errors(self):
        a_file = os.path.join(self.tmp, "a-file")
        open(a_file, "w").close()
        nowhere = os.path.join(self.tmp, "nowhere")
        foreign = os.path.join(self.tmp, "foreign")
        fill(os.path.join(foreign, "not_a_target"), "x", 1)
        for flag, msg in ((f"--seed_from={nowhere}", f"--seed_from={nowhere}: no such directory"),
                          (f"--seed_from={self.tmp},{a_file}",
                           f"--seed_from={a_file}: not a directory"),
                          (f"--seed_from={foreign}",
                           f"--seed_from={foreign} has subdirectories but none named like a "
                           "selected fuzz target (flow_fuzz, pure_fuzz, or NAME_fuzzer)")):
            with self.subTest(flag):
                rc, out = self.campaign("--merge", flag, f"--out={self.out}")
                self.assertEqual(rc, 2, out)
                self.assertEqual(out.strip(), "campaign: " + msg)

    def test_fuzzing_writes_new_finds_beside_the_kept_corpus_then_merges_them(self):
        kept = fill(self.fuzz_dir("pure_fuzz", "corpus"), "kept", 3)
        flat = os.path.join(self.tmp, "flat")
        seeds = fill(flat, "downloaded", 2)
        for resume in (True, False):
            with self.subTest(resume=resume):
                os.unlink(self.argv_log) if os.path.exists(self.argv_log) else None
                rc, out = self.campaign("--seconds=1", "--targets=pure_fuzz", "--no-stress",
                                        f"--seed_from={flat}", f"--out={self.out}",
                                        *([] if resume else ["--no-resume"]))
                self.assertEqual(rc, 0, out)
                fork = next(c for c in self.fuzzer_calls() if "-fork=" in c[0])
                dirs = [a for a in fork if not a.startswith("-")]
                self.assertEqual(dirs[0], self.fuzz_dir("pure_fuzz", "new"))
                self.assertIn(flat, dirs)
                self.assertEqual(self.fuzz_dir("pure_fuzz", "corpus") in dirs, resume)
                self.assertIn("-ignore_crashes=1", fork)
                got = set(contents(self.fuzz_dir("pure_fuzz", "corpus")))
                self.assertLessEqual(kept | seeds, got)
                found = {d for d in got if d.startswith(b"new input")}
                self.assertEqual(len(found), 1 if resume else 2, out)  # one per run
                self.assertFalse(os.path.exists(self.fuzz_dir("pure_fuzz", "new")))

    def test_minimize_writes_a_minimized_corpus_beside_the_kept_one(self):
        corpus = self.fuzz_dir("pure_fuzz", "corpus")
        kept = fill(corpus, "kept", 3)
        put(corpus, "copy", b"kept 0")
        put(corpus, "redundant", b"redundant input")
        before = contents(corpus)
        put(self.fuzz_dir("pure_fuzz", "corpus.min"), "stale", b"an older minimization")
        rc, out = self.campaign("--minimize", "--targets=pure_fuzz", f"--out={self.out}")
        self.assertEqual(rc, 0, out)
        self.assertEqual(contents(corpus), before, "--minimize changed the kept corpus")
        self.assertEqual(sorted(contents(self.fuzz_dir("pure_fuzz", "corpus.min"))),
                         sorted(kept), out)
        self.assertEqual(sorted(os.listdir(self.fuzz_dir("pure_fuzz"))),
                         ["corpus", "corpus.min", "minimize.log"])
        self.assertIn("minimized: ", out)

    def test_ten_sigkills_of_merge_at_random_moments_never_lose_the_corpus(self):
        """SIGKILL tools/campaign.sh --merge (bootstrap, then campaign.py in
        the same process) ten times, each from the same start: at random
        moments of a run, three of them while the stand-in merge (~0.7 s of
        a ~2 s run) surely runs."""
        corpus = self.fuzz_dir("pure_fuzz", "corpus")
        flat = os.path.join(self.tmp, "flat")
        seeds = fill(flat, "downloaded", 30) | committed("pure_fuzz")
        pidfile = os.path.join(self.tmp, "merge.pid")
        env = {"FAKE_MERGE_DELAY": "0.02", "FAKE_MERGE_PIDFILE": pidfile,
               "script": "campaign.sh"}
        args = ("--merge", "--targets=pure_fuzz", f"--seed_from={flat}", f"--out={self.out}")

        def reset():
            for d in (self.fuzz_dir("pure_fuzz"),):
                if os.path.isdir(d):
                    shutil.rmtree(d)
            # An input a minimization would drop: a merge must keep it.
            put(corpus, "redundant-kept", b"redundant but kept")
            return fill(corpus, "kept", 6) | {b"redundant but kept"}

        kept = reset()
        start = time.monotonic()
        proc = self.start(*args, **env)
        while not os.path.exists(pidfile) and proc.poll() is None:
            time.sleep(0.005)
        merge_start = time.monotonic() - start
        out = proc.communicate()[0]
        duration = time.monotonic() - start
        self.assertEqual(proc.returncode, 0, out)
        self.assertEqual(set(contents(corpus)), kept | seeds)
        rng = random.Random(10)
        outcomes = set()
        mid_merge = 0
        for i in range(10):
            kept = reset()
            if os.path.exists(pidfile):
                os.unlink(pidfile)
            proc = self.start(*args, **env)
            if 5 <= i < 8:
                # Surely inside the merge, however loaded the machine: once
                # the stand-in has written its pid, it copies 30+ inputs
                # 0.02 s apart (sleeps only grow under load).
                while not os.path.exists(pidfile) and proc.poll() is None:
                    time.sleep(0.005)
                time.sleep(rng.uniform(0, 0.4))
            else:
                # Any moment of the run; the last two within the merge and
                # the swap, where the corpus is at stake (not in bootstrap).
                time.sleep(rng.uniform(0 if i < 5 else merge_start, duration))
            merging = os.path.exists(pidfile)
            pid = 0
            if merging:
                with open(pidfile) as f:
                    pid = int(f.read() or 0)
            running = bool(pid) and not process_gone(pid)
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
            if merging:  # the merge dies with the campaign
                mid_merge += 1 if running else 0
                deadline = time.monotonic() + 10
                while pid and not process_gone(pid) and time.monotonic() < deadline:
                    time.sleep(0.01)
                self.assertTrue(not pid or process_gone(pid), "the merge outlived the campaign")
            context = f"kill {i + 1} after {duration:.2f}s max"
            for when in ("as the kill left it", "after recovery"):
                self.assertTrue(os.path.isdir(corpus), f"{context}: no corpus {when}")
                got = contents(corpus)
                self.assertLessEqual(kept, set(got), f"{context}: inputs lost {when}")
                self.assertLessEqual(set(got), kept | seeds, f"{context}: a torn input {when}")
                LiveCorpus(corpus).recover()
            outcomes.add("merged" if set(got) == kept | seeds else "kept")
        self.assertEqual([d for d in sorted(os.listdir(self.fuzz_dir("pure_fuzz")))
                          if os.path.isdir(self.fuzz_dir("pure_fuzz", d))], ["corpus"])
        self.assertGreater(mid_merge, 0, "no kill landed while libFuzzer merged")
        print(f"\n  ten kills of campaign.sh --merge (run {duration:.1f}s, merge from "
              f"{merge_start:.1f}s): {mid_merge} while the merge ran; the corpus afterwards: "
              f"{', '.join(sorted(outcomes))}", file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
