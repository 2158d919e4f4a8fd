#!/usr/bin/env python3
"""A stand-in for //stress:stress_main in the tools' tests.

Takes --seconds and --json_out like the driver; $FAKE_STRESS says what to do:
  pass      write a "pass" report (seed $FAKE_STRESS_SEED, default 7), exit 0
  fail      print "flowcheck: FAIL [invariant F1] ..." and the rerun line,
            write a "fail" report, abort
  lockcheck print a lockcheck report (no JSON, as an abort in lockcheck), abort
  hang      touch $FAKE_STRESS_READY and wait: a SIGINT kills it
  interrupt-report  as hang, but a SIGINT writes an "interrupted" report, exit 130
  silent-exit       exit 0 without writing a report
"""

import json
import os
import signal
import sys
import time

json_out = next(a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--json_out="))
mode = os.environ.get("FAKE_STRESS", "pass")
seed = int(os.environ.get("FAKE_STRESS_SEED", "7"))
rerun = f"bazel run --config=tsan //stress:stress_main -- --seed={seed}"


def report(result, **extra):
    with open(json_out, "w") as f:
        json.dump({"result": result, "seed": seed, "rerun": rerun, **extra}, f)


print(f"flowcheck stress: seed {seed}", flush=True)
if mode == "pass":
    report("pass")
elif mode == "fail":
    sys.stderr.write(f"flowcheck: FAIL [invariant F1] flow 3 owned twice\n"
                     f"flowcheck: seed {seed}\nflowcheck: rerun: {rerun}\n")
    sys.stderr.flush()
    report("fail", failure="invariant F1", detail="flow 3 owned twice")
    os.abort()
elif mode == "lockcheck":
    sys.stderr.write("======== lockcheck: lock-order-inversion on &qp->s_lock ========\n"
                     "lockcheck: aborting on the first violation\n")
    sys.stderr.flush()
    os.abort()
elif mode in ("hang", "interrupt-report"):
    if mode == "interrupt-report":
        def on_int(signum, frame):
            report("interrupted")
            sys.exit(130)
        signal.signal(signal.SIGINT, on_int)
    open(os.environ["FAKE_STRESS_READY"], "w").close()
    while True:
        time.sleep(0.05)
elif mode != "silent-exit":
    sys.exit(f"fake_stress: unknown FAKE_STRESS={mode}")
