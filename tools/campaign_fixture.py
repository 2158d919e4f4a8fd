"""The campaign's test fixture: stand-ins for bazel, libFuzzer and the stress
driver (tools/testdata/fake_*) in a scratch directory, and helpers to run
tools/campaign.py against them. Used by campaign_test.py and the tests it
loads (campaign_corpus_test.py, campaign_crashes_test.py).
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
TESTDATA = os.path.join(TOOLS, "testdata")

FAKE_REPRODUCE = """#!/bin/sh
# fake //fuzz:reproduce: says what it was given; exit 1 (reproduced) if it is a file
echo "fake reproduce: $*"
for a in "$@"; do last="$a"; done
[ -f "$last" ] && exit 1
echo "fake reproduce: no such file: $last"; exit 2
"""


def wait_for(path, proc, seconds=60):
    """Waits until path exists (the fake touched it); fails if proc ends first."""
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        if proc.poll() is not None:
            raise AssertionError(f"campaign exited {proc.returncode} before {path} appeared:\n"
                                 + proc.stdout.read())
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never appeared")
        time.sleep(0.02)


class CampaignFixture(unittest.TestCase):
    """setUp makes the stand-ins; no tests of its own."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="flowcheck-campaign-test-")
        path_dir = os.path.join(self.tmp, "path")
        self.bin = os.path.join(self.tmp, "bazel-bin")
        for d in (path_dir, os.path.join(self.bin, "fuzz"), os.path.join(self.bin, "stress"),
                  os.path.join(self.tmp, "tmp"), os.path.join(self.tmp, "work")):
            os.makedirs(d)
        os.symlink(os.path.join(TESTDATA, "fake_bazel.sh"), os.path.join(path_dir, "bazel"))
        for t in ("pure_fuzz", "flow_fuzz"):
            os.symlink(os.path.join(TESTDATA, "fake_fuzzer.py"),
                       os.path.join(self.bin, "fuzz", t + "_fuzzer"))
        os.symlink(os.path.join(TESTDATA, "fake_stress.py"),
                   os.path.join(self.bin, "stress", "stress_main"))
        reproduce = os.path.join(self.bin, "fuzz", "reproduce")
        with open(reproduce, "w") as f:
            f.write(FAKE_REPRODUCE)
        os.chmod(reproduce, 0o755)
        self.out = os.path.join(self.tmp, "out")
        self.ready = os.path.join(self.tmp, "ready")
        self.env = {**os.environ, "PATH": path_dir + os.pathsep + os.environ["PATH"],
                    "FAKE_BAZEL_BIN": self.bin, "FAKE_BAZEL_LOG": os.path.join(self.tmp, "bazel.log"),
                    "FAKE_BAZEL_FUZZERS": "//fuzz:pure_fuzz_fuzzer,//fuzz:flow_fuzz_fuzzer",
                    "FAKE_BAZEL_STRESS": "//stress:stress_main",
                    "TMPDIR": os.path.join(self.tmp, "tmp"),
                    "FAKE_FUZZER_READY": self.ready, "FAKE_STRESS_READY": self.ready}
        self.env.pop("FLOWCHECK_FUZZ_STRICT", None)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, *args, cwd=ROOT, script="campaign.py", **env):
        cmd = ([sys.executable, os.path.join(TOOLS, script)] if script.endswith(".py")
               else [os.path.join(TOOLS, script)])
        return subprocess.Popen(cmd + list(args), cwd=cwd, env={**self.env, **env}, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def campaign(self, *args, **kw):
        proc = self.start(*args, **kw)
        out = proc.communicate(timeout=120)[0]
        return proc.returncode, out

    def interrupted_campaign(self, *args, **env):
        """Starts a campaign, sends it SIGINT once the fake is running."""
        proc = self.start(*args, **env)
        wait_for(self.ready, proc)
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=120)[0]
        return proc.returncode, out

    def summary(self, out_dir=None):
        with open(os.path.join(out_dir or self.out, "campaign-summary.json")) as f:
            return json.load(f)

    def leftovers(self):
        """libFuzzer scratch files anywhere under the test's TMPDIR or OUT."""
        found = []
        for top in (self.env["TMPDIR"], self.out):
            for dirpath, dirnames, filenames in os.walk(top):
                found += [os.path.join(dirpath, n) for n in dirnames + filenames
                          if n.startswith("libFuzzerTemp.")]
        return found
