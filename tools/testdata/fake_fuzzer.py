#!/usr/bin/env python3
"""A stand-in for a libFuzzer binary in the tools' tests (no fuzzing, same files).

  -fork=N ... CORPUS [SEEDS...]  makes $TMPDIR/libFuzzerTemp.FuzzWithFork<pid>.dir
      as libFuzzer does, prints a status line, adds one input to CORPUS, waits
      $FAKE_FUZZ_SECONDS (0.2) and removes the directory again. A SIGINT ends
      it the same way (exit 72), except as $FAKE_FUZZER_SIGINT says:
        ignore-first  the first SIGINT is ignored (libFuzzer's parent while
                      its start-up merge runs under system())
        ignore        every SIGINT is ignored: only SIGKILL ends it
      $FAKE_FUZZER_CRASH=1 also writes a crash file to -artifact_prefix and
      exits 1 at once. $FAKE_FUZZER_CRASHES names a JSON list of failure
      reports: one crash file per report (crash-<sha1>, holding b"crash:"
      and the report), and it goes on (-ignore_crashes=1).
      Touches $FAKE_FUZZER_READY once its files exist.
  -merge=1 INTO FROM...  copies every input of FROM whose content INTO does
      not hold yet into INTO, named by its sha1, except those starting with
      b"redundant" (a minimization); never touches what INTO held. Each file
      is written in two halves $FAKE_MERGE_DELAY/2 seconds (0) apart, as a
      kill may find it; uses $TMPDIR/libFuzzerTemp.Merge<pid>.txt meanwhile
      and writes its pid to $FAKE_MERGE_PIDFILE if set. With
      FLOWCHECK_FUZZ_STRICT=1 an input starting with b"strict-crash" crashes:
      it is skipped and its crash file written to -artifact_prefix (or the
      current directory), as libFuzzer's merge does.
  A file argument (not a directory, no -merge) is run once, like libFuzzer:
      a file written from $FAKE_FUZZER_CRASHES prints its report, exit 1;
      any other prints "Executed FILE", exit 0.
Every command line is appended to $FAKE_FUZZER_ARGV_LOG if set.
"""

import hashlib
import json
import os
import signal
import sys
import time

flags = {a.split("=", 1)[0]: a.split("=", 1)[1] for a in sys.argv[1:]
         if a.startswith("-") and "=" in a}
dirs = [a for a in sys.argv[1:] if not a.startswith("-")]
tmp = os.environ.get("TMPDIR", "/tmp")


def inputs(dirs):
    for d in dirs:
        for name in sorted(os.listdir(d)):
            with open(os.path.join(d, name), "rb") as f:
                yield f.read()


def merge():
    if os.environ.get("FAKE_MERGE_PIDFILE"):
        with open(os.environ["FAKE_MERGE_PIDFILE"], "w") as f:
            f.write(str(os.getpid()))
    control = os.path.join(tmp, f"libFuzzerTemp.Merge{os.getpid()}.txt")
    open(control, "w").close()
    into = dirs[0]
    seen = {hashlib.sha1(data).hexdigest() for data in inputs([into])}
    delay = float(os.environ.get("FAKE_MERGE_DELAY", "0"))
    for data in inputs(dirs[1:]):
        name = hashlib.sha1(data).hexdigest()
        if data.startswith(b"redundant") or name in seen:
            continue
        if data.startswith(b"strict-crash") and os.environ.get("FLOWCHECK_FUZZ_STRICT") == "1":
            with open(flags.get("-artifact_prefix", "./") + "crash-" + name, "wb") as f:
                f.write(data)
            continue
        seen.add(name)
        with open(os.path.join(into, name), "wb") as f:
            f.write(data[: len(data) // 2])
            f.flush()
            time.sleep(delay / 2)
            f.write(data[len(data) // 2:])
        time.sleep(delay / 2)
    os.unlink(control)


def replay():
    with open(dirs[-1], "rb") as f:
        data = f.read()
    if data.startswith(b"crash:"):
        sys.stdout.write(data.split(b"\n", 1)[1].decode())
        sys.exit(1)
    print(f"Executed {dirs[-1]}")


def fuzz():
    work = os.path.join(tmp, f"libFuzzerTemp.FuzzWithFork{os.getpid()}.dir")
    os.makedirs(os.path.join(work, "C1"))
    state = {"ints": 0}

    def finish(code):
        for name in os.listdir(os.path.join(work, "C1")):
            os.unlink(os.path.join(work, "C1", name))
        os.rmdir(os.path.join(work, "C1"))
        os.rmdir(work)
        sys.exit(code)

    def on_int(signum, frame):
        state["ints"] += 1
        if os.environ.get("FAKE_FUZZER_SIGINT") == "ignore-first" and state["ints"] == 1:
            return
        finish(72)

    if os.environ.get("FAKE_FUZZER_SIGINT") == "ignore":
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    else:
        signal.signal(signal.SIGINT, on_int)
    open(os.path.join(work, "C1", "job-input"), "w").close()
    data = b"new input %d" % os.getpid()
    with open(os.path.join(dirs[0], hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)
    print("#100: cov: 10 ft: 20 corp: 3 exec/s 50 oom/timeout/crash: 0/0/0 time: 2s job: 1",
          flush=True)
    if os.environ.get("FAKE_FUZZER_CRASH") == "1":
        with open(flags["-artifact_prefix"] + "crash-fake", "wb") as f:
            f.write(b"crashing input")
        print("==1==ERROR: libFuzzer: deadly signal", flush=True)
        finish(1)
    if os.environ.get("FAKE_FUZZER_CRASHES"):
        with open(os.environ["FAKE_FUZZER_CRASHES"]) as f:
            reports = json.load(f)
        for i, report in enumerate(reports):
            data = b"crash:%d\n" % i + report.encode()
            with open(flags["-artifact_prefix"] + "crash-" + hashlib.sha1(data).hexdigest(),
                      "wb") as f:
                f.write(data)
    if os.environ.get("FAKE_FUZZER_READY"):
        open(os.environ["FAKE_FUZZER_READY"], "w").close()
    end = time.monotonic() + float(os.environ.get("FAKE_FUZZ_SECONDS", "0.2"))
    while time.monotonic() < end:
        time.sleep(0.01)
    finish(0)


if os.environ.get("FAKE_FUZZER_ARGV_LOG"):
    with open(os.environ["FAKE_FUZZER_ARGV_LOG"], "a") as f:
        f.write(json.dumps(sys.argv[1:]) + "\n")
if flags.get("-merge") == "1":
    merge()
elif dirs and os.path.isfile(dirs[-1]):
    replay()
else:
    fuzz()
