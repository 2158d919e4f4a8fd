"""One stress driver's share of a campaign, and its verdict from this run only.

The driver (//stress:stress_main under --config=tsan) runs with --seconds and
--json_out=OUT/stress/NAME.json; its output is shown live and kept in
OUT/stress/NAME.log. The report file is deleted before the run, so a report
read afterwards was written by this run. The verdict (outcome()) rests on
the exit status, the failure markers in the output (flowcheck_tools.markers:
"flowcheck: FAIL [...]", a lockcheck or TSan report) and that report if
present: a driver that aborts may write none, and an interrupted run is
"interrupted", never "pass".
"""

import json
import os
import re
import signal
import subprocess
import sys
import time

from flowcheck_tools import ROOT, bazel, markers, process
from flowcheck_tools.atomic import WriteError

# Exit statuses of a driver stopped by SIGINT/SIGTERM: killed by the signal,
# or a handler's exit(128 + signal).
INTERRUPTED_EXITS = {-signal.SIGINT, -signal.SIGTERM,
                     128 + signal.SIGINT, 128 + signal.SIGTERM}
RERUN_RE = re.compile(r"^flowcheck: rerun: (.+)$", re.M)


def log(msg):
    print(f"[campaign] {msg}", flush=True)


def outcome(exit_code, output, report, interrupted):
    """("pass" | "fail" | "interrupted", why it failed or None).

    exit_code: the driver's; output: everything it printed; report: its JSON
    report written during this run (None if it wrote none or an unreadable
    one); interrupted: the campaign stopped it."""
    result = report.get("result") if isinstance(report, dict) else None
    marker = markers.find(output)
    if marker:
        return "fail", marker.line
    if result == "fail":
        return "fail", f"report: {report.get('failure', '?')}: {report.get('detail', '')}".strip()
    if interrupted or exit_code in INTERRUPTED_EXITS or result == "interrupted":
        return "interrupted", None
    if exit_code == 0 and result == "pass":
        return "pass", None
    if exit_code == 0:
        return "fail", "exited 0 without a passing report" + (
            f" (report says {result!r})" if result else "")
    how = f"killed by signal {-exit_code}" if exit_code < 0 else f"exit {exit_code}"
    return "fail", f"{how} without a failure report"


def _read_report(path):
    try:
        with open(path) as f:
            report = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"result": "unreadable"}
    return report if isinstance(report, dict) else {"result": "unreadable"}


def run_stress(label, bin_root, out_dir, seconds, stop_grace_s):
    """Runs the driver `label` once; returns its summary entry (a dict)."""
    pkg, name = bazel.split_label(label)
    stress_dir = os.path.join(out_dir, "stress")
    os.makedirs(stress_dir, exist_ok=True)
    json_out = os.path.join(stress_dir, name + ".json")
    log_path = os.path.join(stress_dir, name + ".log")
    try:
        os.unlink(json_out)  # an earlier run's report must not stand for this one
    except FileNotFoundError:
        pass
    except OSError as e:
        raise WriteError(f"cannot remove the previous report {json_out}: {e.strerror}") from e
    cmd = [os.path.join(bin_root, pkg, name), f"--seconds={seconds}", f"--json_out={json_out}"]
    log(f"{name}: stress under TSan for {seconds}s")
    start = time.monotonic()
    interrupted = False
    chunks = []
    with open(log_path, "w") as logf:
        def tee(text):
            sys.stdout.write(text)
            sys.stdout.flush()
            logf.write(text)
            chunks.append(text)

        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace", start_new_session=True)
        try:
            for line in proc.stdout:
                tee(line)
            rc = proc.wait()
        except KeyboardInterrupt:
            interrupted = True
            rc = process.stop_group(proc, stop_grace_s)
            tee(proc.stdout.read())
    output = "".join(chunks)
    report = _read_report(json_out)
    verdict, failure = outcome(rc, output, report, interrupted)
    rerun = report.get("rerun") if isinstance(report, dict) else None
    if not rerun:
        m = RERUN_RE.search(output)
        rerun = m.group(1).strip() if m else None
    return {"target": name, "outcome": verdict, "exit_code": rc,
            "seconds": round(time.monotonic() - start, 1), "log": log_path,
            "json": json_out if report is not None else None, "report": report,
            "failure": failure, "rerun": rerun}
