"""Crash signatures (tools/flowcheck_tools/signature.py) and their index
(crashes.py).

SignatureTest: fabricated outputs of every kind (flowcheck's oracle and
invariant failures, an upstream divergence under strict mode, ASan, UBSan,
TSan, lockcheck, LeakSanitizer, libFuzzer's deadly signal, timeout and
out-of-memory): each gives its kind and where it fired, and two outputs that
differ only in addresses, sizes, line numbers or op indices give the same
line. CrashIndexTest: one file kept per signature, a kill between the index
write and the deletion never counts a file twice.

RealReplayTest (`python3 tools/signature_test.py RealReplayTest`, builds
--config=fuzz; not part of tools/test.sh): tools/reproduce.sh --signature on
the committed fuzz/testdata/r1_strict_failure, strict and not, and on the
seed that reaches the RESERVED generation ([R-7]/[R-3]) in strict mode.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
sys.path.insert(0, TOOLS)
from flowcheck_tools.crashes import CrashIndex  # noqa: E402
from flowcheck_tools.signature import of_output  # noqa: E402

R1 = """Running: /out/fuzz/flow_fuzz/crashes/crash-{sha}
flowcheck: FAIL [invariant W5] flow_fuzz op #{op} flush_wait(qp#{qp})
  call:     flush_wait(qp#{qp})
  returned: model 0, oracle 0
  invariants violated:
    W5 upstream divergence: [R-1] flow_queue: enqueue 0 - dequeue {n} = -{n} but 0 queued
    W5 upstream divergence: [R-1] rarr_queue: enqueue {n} - dequeue 0 = {n} but 0 queued
  reproduce: tools/reproduce.sh --strict <this input's crash file>
==2698== ERROR: libFuzzer: deadly signal
    #0 0x56197eac8e11 in __sanitizer_print_stack_trace (/bin/flow_fuzz_fuzzer+0x1c9e11)
    #6 0x7fcf5eb64471 in abort stdlib/./stdlib/abort.c:79:7
    #7 0x56197eafc415 in flowcheck::fuzz::FuzzOneInput(flowcheck::fuzz::Format, unsigned char const*, unsigned long) /proc/self/cwd/fuzz/executor/fuzz_one_input.cc:30:3
SUMMARY: libFuzzer: deadly signal
"""

ASAN = """==31==ERROR: AddressSanitizer: heap-use-after-free on address 0x{addr} at pc 0x55 bp 0x7f sp 0x7f
READ of size {size} at 0x{addr} thread T0
    #0 0x{addr} in std::__1::vector<int>::operator[](unsigned long) /usr/include/c++/v1/vector:1500:12
    #1 0x55d1 in kern_reserve_flow(hfi1_ctxtdata*, int) /proc/self/cwd/core/tid_rdma_flow.cc:{line}:3
    #2 0x55d2 in flowcheck::Lockstep::Step(flowcheck::Op const&) /proc/self/cwd/core/oracle/lockstep.cc:90:5
freed by thread T0 here:
    #0 0x55d3 in operator delete(void*) (/bin/reserve_fuzz_fuzzer+0x1)
SUMMARY: AddressSanitizer: heap-use-after-free /proc/self/cwd/core/tid_rdma_flow.cc:{line}:3 in kern_reserve_flow(hfi1_ctxtdata*, int)
"""

UBSAN = """/proc/self/cwd/core/tid_rdma_flow.cc:{line}:20: runtime error: index {i} out of bounds for type 'tid_flow_state [32]'
    #0 0x5e in hfi1_kern_setup_hw_flow(hfi1_ctxtdata*, rvt_qp*) /proc/self/cwd/core/tid_rdma_flow.cc:{line}:20
    #1 0x5f in flowcheck::CallSetup(rvt_qp*) /proc/self/cwd/core/callers.cc:40:3
SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior
"""

TSAN = """==================
WARNING: ThreadSanitizer: data race (pid={pid})
  Write of size 8 at 0x{addr} by thread T{t}:
    #0 hfi1_kern_clear_hw_flow(hfi1_ctxtdata*, rvt_qp*) /proc/self/cwd/core/tid_rdma_flow.cc:{line}:5 (stress_main+0x4a1b2c)
    #1 flowcheck::stress::Worker<int>::Run()::$_{lam}::operator()() const /proc/self/cwd/stress/worker.cc:10:3 (stress_main+0x1)
  Previous read of size 8 at 0x{addr} by thread T1:
    #0 kern_reserve_flow(hfi1_ctxtdata*, int) /proc/self/cwd/core/tid_rdma_flow.cc:50:5 (stress_main+0x2)
"""

LOCKCHECK = """======== lockcheck: lock-order-inversion on &qp->s_lock ========
possible circular locking dependency: thread {t} "tid-wakeup" acquires &qp->s_lock (0x{addr}) while holding &rcd->exp_lock (0x7fff8a195ec0).
  existing order: &qp->s_lock -> &rcd->exp_lock
    &qp->s_lock -> &rcd->exp_lock, first seen in thread 1 "send-engine":
        #0 0x5567e3419f88 (anonymous namespace)::hfi1_kern_setup_hw_flow()
locks held by thread 2 "tid-wakeup" (outermost first):
  #0 &rcd->exp_lock (0x7fff8a195ec0) acquired at (anonymous namespace)::buggy_wakeup_under_exp_lock()
stack of thread {t} "tid-wakeup":
    #0 0x{addr} (anonymous namespace)::buggy_wakeup_under_exp_lock()
    #1 0x5567e341a320 main::$_{lam}::operator()() const
lockcheck: aborting on the first violation (tests can install a lockcheck::RecordingHandler instead)
==1== ERROR: libFuzzer: deadly signal
"""

DEADLY = """==7== ERROR: libFuzzer: deadly signal
    #0 0x56 in __sanitizer_print_stack_trace (/bin/flow_fuzz_fuzzer+0x1c9e11)
    #1 0x56 in fuzzer::PrintStackTrace() crtstuff.c
    #4 0x7f in __pthread_kill_implementation nptl/./nptl/pthread_kill.c:43:17
    #5 0x7f in raise signal/../sysdeps/posix/raise.c:26:13
    #6 0x7f in abort stdlib/./stdlib/abort.c:79:7
    #7 0x{addr} in flowcheck::Lockstep::Reset(unsigned int) /proc/self/cwd/core/oracle/lockstep.cc:{line}:5
SUMMARY: libFuzzer: deadly signal
"""

CASES = [
    # (what, template, two sets of values that must give one signature, the signature)
    ("strict: the kernel's [R-1]", R1, dict(sha="ab12", op=2, qp=0, n=1),
     dict(sha="cd34", op=17, qp=5, n=3), "invariant W5 upstream divergence [R-1]"),
    ("an invariant violated",
     "flowcheck: FAIL [invariant F1] reserve_fuzz op #{op} (call {c}) fill()\n"
     "  invariants violated:\n    F1 violation: flow {op} owned twice\n"
     "    W5 upstream divergence: [R-1] x\n",
     dict(op=3, c=2), dict(op=9, c=30), "invariant F1 @ fill"),
    ("the oracle disagrees",
     "flowcheck: FAIL [oracle] flow_fuzz op #{op} setup_hw_flow(qp#{qp})\n"
     "  returned: model {r}, oracle 0  <-- differ\n",
     dict(op=1, qp=0, r=-11), dict(op=40, qp=7, r=3), "oracle @ setup_hw_flow"),
    ("the initial state", "flowcheck: FAIL [oracle] flow_fuzz op #{op} (the initial state)\n",
     dict(op=0), dict(op=0), "oracle @ the initial state"),
    ("a pure property",
     "flowcheck: FAIL [invariant P3] pure_fuzz op #{op} generation(0x{g})\n",
     dict(op=0, g="ffffe"), dict(op=12, g="fffff"), "invariant P3 @ generation"),
    ("ASan: a heap use after free", ASAN, dict(addr="602000001", size=4, line=55),
     dict(addr="60b0000ff", size=8, line=58), "asan heap-use-after-free @ kern_reserve_flow"),
    ("UBSan: an index out of bounds", UBSAN, dict(line=60, i=32), dict(line=61, i=33),
     "ubsan index out of bounds for type @ hfi1_kern_setup_hw_flow"),
    ("UBSan: a signed overflow",
     "/proc/self/cwd/core/reference.cc:{l}:9: runtime error: signed integer overflow: "
     "{a} + 1 cannot be represented in type 'int'\n"
     "    #0 0x1 in flowcheck::NextPsn(int) /proc/self/cwd/core/reference.cc:{l}:9\n",
     dict(l=3, a=2147483647), dict(l=4, a=2147483640),
     "ubsan signed integer overflow @ flowcheck::NextPsn"),
    ("TSan: a data race", TSAN, dict(pid=12, addr="7b04", t=2, line=100, lam=0),
     dict(pid=99, addr="7b99", t=5, line=101, lam=3),
     "tsan data race @ hfi1_kern_clear_hw_flow"),
    ("lockcheck: an order inversion", LOCKCHECK, dict(t=2, addr="7fff8a195eb0", lam=0),
     dict(t=9, addr="7ffd00000010", lam=1),
     "lockcheck lock-order-inversion @ (anonymous namespace)::buggy_wakeup_under_exp_lock"),
    ("lockcheck: a frame known only by its object and offset (a stripped library's) is not "
     "where",
     "======== lockcheck: lock-order-inversion on &qp->s_lock ========\n"
     "stack of thread {t} \"tid-wakeup\":\n"
     "    #0 0x7f (libc.so.6+0x{off})\n"
     "    #1 0x55 flowcheck::CompareQps()\n",
     dict(t=2, off="4a1f5"), dict(t=3, off="4b2e0"),
     "lockcheck lock-order-inversion @ flowcheck::CompareQps"),
    ("LeakSanitizer",
     "==1==ERROR: LeakSanitizer: detected memory leaks\n\nDirect leak of {n} byte(s) in "
     "{k} object(s) allocated from:\n    #0 0x4f in operator new(unsigned long) "
     "(/bin/x+0x{a})\n    #1 0x5 in flowcheck::MakeQp(int) /proc/self/cwd/core/qp.cc:{l}:10\n",
     dict(n=24, k=1, a="1f", l=30), dict(n=48, k=2, a="2e", l=31),
     "lsan detected memory leaks @ flowcheck::MakeQp"),
    ("libFuzzer: a deadly signal (an abort without a report)", DEADLY,
     dict(addr="55aa", line=88), dict(addr="55bb", line=90),
     "libfuzzer deadly signal @ flowcheck::Lockstep::Reset"),
    ("libFuzzer: a timeout",
     "ALARM: working on the last Unit for {s} seconds\n       and the timeout value is 60\n"
     "=={p}== ERROR: libFuzzer: timeout after {s} seconds\n"
     "    #7 0x1 in kern_reserve_flow(hfi1_ctxtdata*, int) /proc/self/cwd/core/t.cc:{s}:1\n",
     dict(s=61, p=3), dict(s=75, p=4), "libfuzzer timeout"),
    ("libFuzzer: out of memory (RSS)",
     "=={p}== ERROR: libFuzzer: out-of-memory (used: {u}Mb; exceeds: 2048Mb)\n",
     dict(p=1, u=2100), dict(p=2, u=4000), "libfuzzer out-of-memory"),
    ("libFuzzer: out of memory (one malloc)",
     "==1== ERROR: libFuzzer: out-of-memory (malloc({n}))\n"
     "    #0 0x1 in __sanitizer_print_stack_trace (/bin/x+0x1)\n"
     "    #3 0x2 in flowcheck::Grow(unsigned long) /proc/self/cwd/fuzz/executor/x.cc:{l}:2\n",
     dict(n=4294967296, l=5), dict(n=8589934592, l=6), "libfuzzer out-of-memory @ flowcheck::Grow"),
]


class SignatureTest(unittest.TestCase):
    def test_every_kind_with_what_varies_normalised_away(self):
        seen = set()
        for what, template, a, b, want in CASES:
            with self.subTest(what):
                self.assertEqual(of_output(template.format(**a)), want)
                self.assertEqual(of_output(template.format(**b)), want)
                seen.add(want)
        self.assertEqual(len(seen), len(CASES), "two kinds share a signature")

    def test_a_passing_replay_has_no_signature(self):
        self.assertIsNone(of_output("Running: x\nExecuted x in 1 ms\n***\n"))

    def test_one_hazard_is_one_signature_whichever_op_reached_it(self):
        flush = R1.format(sha="a", op=2, qp=0, n=1)
        self.assertEqual(of_output(flush), of_output(flush.replace("flush_wait", "rarr_grant")))
        r3 = ("flowcheck: FAIL [invariant F2] flow_fuzz op #4 resync(qp#1)\n"
              "  invariants violated:\n    F2 upstream divergence: [R-3] generation 0xfffff\n")
        self.assertEqual(of_output(r3), "invariant F2 upstream divergence [R-3]")
        either = ("flowcheck: FAIL [invariant F2] flow_fuzz op #3 resync(qp#0, choice=3, b=0)\n"
                  "  invariants violated:\n    F2 upstream divergence: [R-7]/[R-3] qp 1 owns "
                  "flow 0 with the RESERVED generation 0xfffff\n")
        self.assertEqual(of_output(either), "invariant F2 upstream divergence [R-7]/[R-3]")
        # sched_fuzz prints the violated invariant unindented, after its FAIL line.
        sched = ("flowcheck: FAIL [invariant W5] sched_fuzz step 13: [t0] op #2 flush_wait(qp#0), "
                 "section of flush_wait: upstream divergence (strict): W5 upstream divergence: "
                 "[R-1] flow_queue: enqueue 0 - dequeue 1 = -1 but 0 queued\n"
                 "W5 upstream divergence: [R-1] flow_queue: enqueue 0 - dequeue 1 = -1 but 0 "
                 "queued\n")
        self.assertEqual(of_output(sched), "invariant W5 upstream divergence [R-1]")

    def test_different_ops_of_a_violation_are_different_signatures(self):
        oracle = "flowcheck: FAIL [oracle] flow_fuzz op #3 setup_hw_flow(qp#2)\n"
        self.assertNotEqual(of_output(oracle),
                            of_output(oracle.replace("setup_hw_flow", "clear_hw_flow")))


class CrashIndexTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="flowcheck-crash-index-test-")
        self.crashes = os.path.join(self.dir, "crashes")
        os.mkdir(self.crashes)
        self.index_path = os.path.join(self.dir, "signatures.json")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def crash(self, name, mtime):
        path = os.path.join(self.crashes, name)
        with open(path, "w") as f:
            f.write(name)
        os.utime(path, (mtime, mtime))
        return path

    def test_the_first_file_per_signature_is_kept_the_others_counted_and_deleted(self):
        sigs = {"crash-b": "A", "crash-a": "A", "crash-c": "B", "crash-d": "A"}
        for i, name in enumerate(["crash-b", "crash-a", "crash-c", "crash-d"]):
            self.crash(name, 1000 + i)  # found in this order
        index = CrashIndex(self.crashes, self.index_path)
        kept = [index.add(p, sigs[os.path.basename(p)]) for p in index.pending()]
        self.assertEqual(kept, [True, False, True, False])
        self.assertEqual(sorted(os.listdir(self.crashes)), ["crash-b", "crash-c"])
        self.assertEqual(index.row("A", 3), {"signature": "A", "count": 3, "total": 3,
                                             "first": os.path.join(self.crashes, "crash-b")})
        with open(self.index_path) as f:
            self.assertEqual(json.load(f)["signatures"]["A"]["files"],
                             ["crash-b", "crash-a", "crash-d"])
        self.assertEqual(CrashIndex(self.crashes, self.index_path).pending(), [])

    def test_a_file_counted_before_a_kill_is_deleted_not_counted_again(self):
        index = CrashIndex(self.crashes, self.index_path)
        index.add(self.crash("crash-1", 1000), "A")
        # A kill after the index was written, before the duplicate's deletion:
        dup = self.crash("crash-2", 1001)
        index.signatures["A"]["files"].append("crash-2")
        index2 = CrashIndex(self.crashes, self.index_path)  # as written: without crash-2
        self.assertEqual(index2.pending(), [dup])
        from flowcheck_tools.atomic import write_json
        write_json(self.index_path, {"signatures": index.signatures})
        index3 = CrashIndex(self.crashes, self.index_path)
        self.assertEqual(index3.signature_of("crash-2"), "A")
        self.assertFalse(index3.add(dup, "whatever the replay says"))
        self.assertEqual(os.listdir(self.crashes), ["crash-1"])
        self.assertEqual(index3.row("A", 0)["total"], 2)

    def test_a_kept_file_removed_by_hand_is_replaced_by_the_next_one(self):
        index = CrashIndex(self.crashes, self.index_path)
        index.add(self.crash("crash-1", 1000), "A")
        os.unlink(os.path.join(self.crashes, "crash-1"))
        self.assertTrue(index.add(self.crash("crash-2", 1001), "A"))
        self.assertEqual(os.listdir(self.crashes), ["crash-2"])


class RealReplayTest(unittest.TestCase):
    """tools/reproduce.sh --signature on a committed crashing input."""

    def signature(self, *args):
        r = subprocess.run([os.path.join(TOOLS, "reproduce.sh"), "--signature", *args],
                           cwd=os.path.join(ROOT, "fuzz"), text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return r.returncode, r.stdout

    def test_the_committed_strict_failure(self):
        self.assertEqual(self.signature("--strict", "testdata/r1_strict_failure"),
                         (1, "invariant W5 upstream divergence [R-1]\n"))
        self.assertEqual(self.signature("testdata/r1_strict_failure"),
                         (0, "no failure on replay\n"))
        self.assertEqual(self.signature("--strict", "corpus/flow_fuzz/"
                                        "seed-resync-at-the-generation-wrap"),
                         (1, "invariant F2 upstream divergence [R-7]/[R-3]\n"))
        self.assertEqual(self.signature("--strict", "no-such-file")[0], 2)


if __name__ == "__main__":
    unittest.main()
