"""The self-test's sched:STRATEGY detector and its figures table.

sched:STRATEGY (random, pct or dfs) runs //stress:stress_main, built with
--config=tsan as the `stress` detector builds it, under the controlled
scheduler: `--sched=STRATEGY --seed=1 --seconds=BUDGET` plus DRAWN_FLAGS
(random, pct) or DFS_FLAGS (dfs: every program of up to 3 ops per thread)
below, every failing
schedule written to a scratch
directory. Its failure output carries the same markers as a free-running
run's (the last line is the stress driver's `flowcheck: FAIL [...]`), so
selftest.finish classifies it the same way. A catch counts only if the
schedule file it wrote replays: the same binary is run with
`--replay=FILE` REPLAYS times, and each run must exit 1 with the trace
hash the catching run recorded (the last `flowcheck: trace hash` line).
A report that ends the process before any schedule is written (TSan's
halt_on_error) is still a catch, recorded as "no schedule file"; the run
is then repeated with TSan's reports off (TSAN_OPTIONS=report_bugs=0) to
see whether the race has a consequence a check catches under control, and
that catch is replayed (with reports off too) and recorded as
"consequence".

The figures table (selftest.py --figures) puts the time to detect of each
concurrency mutant (one whose Detectors line has `stress`) side by side:
the OS-scheduled stress run, then random, pct and dfs under control, with
the executions pct needed against its printed bound 1/(n k^(d-1)).
"""

import os
import re

STRATEGIES = ("random", "pct", "dfs")
FIGURE_DETECTORS = ("stress", "sched:random", "sched:pct", "sched:dfs")
REPLAYS = 10
SEED = 1
# random and pct draw READ segments (the RcvArray side) as 15% of a QP's ops
# while it owns a flow (stress's --sched_segment_percent; 0 by default).
DRAWN_FLAGS = ("--sched_segment_percent=15",)
# dfs explores every program of up to 3 ops per thread drawn from the op
# table (two op threads of one QP each, one worker, no rcv-irq), smallest
# first, each with every schedule of at most 1 preemption: small programs
# in full rather than one large program's corner (docs/stress.md, "dfs over
# programs"). Without rcv-irq: exp_lock is declared hardirq-safe, so
# lockcheck's IRQ rules need no emulated interrupt, and the interrupt's
# landing points would multiply every program's schedules (the interrupt's
# interleavings are random's and pct's to explore).
DFS_FLAGS = ("--sched_program_ops=3", "--max_preemptions=1", "--threads=2",
             "--qps_per_thread=1", "--workers=1", "--irq_thread=false")

_SCHEDULE = re.compile(r"^flowcheck: schedule written: (.+)$", re.M)
_HASH = re.compile(r"^flowcheck: trace hash ([0-9a-f]{16})$", re.M)
_SUMMARY = re.compile(r"^flowcheck: (random|pct|dfs): .*?(\d+) (?:executions|schedules)\b", re.M)
_BOUND = re.compile(r"^flowcheck: pct: bound 1/\(n k\^\(d-1\)\) = (\S+) = (\S+) per execution", re.M)


def command(binary, strategy, budget, schedule_dir):
    """The stress_main command line of detector sched:STRATEGY."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown detector sched:{strategy} (one of {', '.join(STRATEGIES)})")
    cmd = [binary, f"--sched={strategy}", f"--seed={SEED}", f"--seconds={budget}",
           f"--schedule_out={schedule_dir.rstrip('/')}/"]
    cmd.extend(DFS_FLAGS if strategy == "dfs" else DRAWN_FLAGS)
    return cmd


def parse_run(output):
    """What a controlled run printed: the schedule file, the trace hash of the
    failing execution (the last one printed), executions run, pct's bound."""
    sched = _SCHEDULE.findall(output)
    hashes = _HASH.findall(output)
    summary = _SUMMARY.findall(output)
    bound = _BOUND.search(output)
    return {"schedule": sched[-1].strip() if sched else None,
            "trace_hash": hashes[-1] if hashes else None,
            "executions": int(summary[-1][1]) if summary else None,
            "bound": bound.group(2) if bound else None,
            "bound_formula": bound.group(1) if bound else None}


def replay_ok(code, output, recorded_hash):
    """One replay reproduced the catch: exit 1, and the replay's own
    "reproduced [...], trace hash H as recorded" line names the same hash."""
    m = re.search(r"^flowcheck: replay: reproduced \[[^\]]+\], trace hash ([0-9a-f]{16}) "
                  r"as recorded$", output, re.M)
    return code == 1 and m is not None and m.group(1) == recorded_hash


def tsan_reports_off():
    """The environment of a run whose TSan reports are off."""
    env = dict(os.environ)
    env["TSAN_OPTIONS"] = (env.get("TSAN_OPTIONS", "") + ":report_bugs=0").lstrip(":")
    return env


def replay(run_cmd, binary, cwd, path, recorded_hash, times=REPLAYS, env=None):
    """Replays path `times` times; returns (reproduced, first bad output)."""
    good, bad = 0, ""
    for _ in range(times):
        code, out, _, _ = run_cmd([binary, f"--replay={path}"], cwd, 300, env=env)
        if replay_ok(code, out, recorded_hash):
            good += 1
        elif not bad:
            bad = f"exit {code}: " + "\n".join(out.splitlines()[-5:])
    return good, bad


def annotate(result, output, fired, run_cmd, binary, cwd, env=None):
    """Adds the controlled run's figures to a finished detector result, and
    replays the schedule of a catch. A catch whose schedule does not replay
    REPLAYS/REPLAYS is marked replay_failed (not a catch: unreproducible)."""
    info = parse_run(output)
    result["executions"] = info["executions"]
    if info["bound"]:
        result["pct_bound"] = info["bound"]
        result["pct_bound_formula"] = info["bound_formula"]
    if not fired:
        return result
    if not info["schedule"]:
        result["replayed"] = "no schedule file"
        return result
    result["schedule"] = info["schedule"]
    result["trace_hash"] = info["trace_hash"]
    good, bad = replay(run_cmd, binary, cwd, info["schedule"], info["trace_hash"], env=env)
    result["replayed"] = f"{good}/{REPLAYS}"
    if good != REPLAYS:
        result["replay_failed"] = bad
    return result


def consequence(result, cmd, run_cmd, binary, cwd, finish):
    """For a TSan catch without a schedule file: the same run with TSan's
    reports off; what a check then catches (if anything), replayed."""
    if result.get("layer") != "tsan" or result.get("replayed") != "no schedule file":
        return result
    env = tsan_reports_off()
    code, out, secs, _ = run_cmd(cmd, cwd, 300, env=env)
    c = finish(code != 0, out, secs, 0.0)
    c.pop("_output", None)
    c["detector"] = result["detector"]
    result["consequence"] = annotate(c, out, code != 0, run_cmd, binary, cwd, env=env)
    return result


def cell(run):
    """A figures-table cell: time to detect, what spoke, replay outcome."""
    if run is None:
        return "-"
    if run.get("layer") == "build-error":
        return "build error"
    if not run["fired"]:
        n = run.get("executions")
        return f"not in {run['seconds']:.0f} s" + (f" ({n} executions)" if n else "")
    s = f"{run['seconds']:.1f} s, {run['signature']}"
    if run.get("executions") is not None and run["detector"].startswith("sched:"):
        s += f", exec {run['executions']}"
    if run.get("replayed") == "no schedule file":
        s += ", no schedule file (TSan ends the process first)"
        if run.get("consequence"):
            s += "; TSan reports off: " + cell(run["consequence"])
    elif run.get("replayed"):
        s += f", replayed {run['replayed']}"
    return s


def pct_rate(run):
    """pct's measured rate per execution (1 / executions to the first catch)
    against its printed bound."""
    if run and run.get("consequence", {}).get("fired"):
        run = run["consequence"]
    if not run or not run["fired"] or not run.get("executions"):
        return "-"
    rate = 1.0 / run["executions"]
    bound = run.get("pct_bound")
    if not bound or float(bound) == 0:  # failed before any decision: n = k = 0
        return f"1/{run['executions']} = {rate:.2g}"
    return f"1/{run['executions']} = {rate:.2g} vs bound {bound} ({run['pct_bound_formula']})"


def figures_table(results):
    """The markdown table of selftest.py --figures (README's self-test)."""
    lines = ["| id | stress (OS) | sched:random | sched:pct | sched:dfs | pct rate per execution vs bound |",
             "|---|---|---|---|---|---|"]
    for r in results:
        by = {x["detector"]: x for x in r["runs"]}
        lines.append(f"| {r['id']} | " + " | ".join(cell(by.get(d)) for d in FIGURE_DETECTORS)
                     + f" | {pct_rate(by.get('sched:pct'))} |")
    return "\n".join(lines)


def controlled_catch(result):
    """Acceptance: caught under sched:pct or sched:dfs with the schedule
    replayed REPLAYS/REPLAYS."""
    ok = f"{REPLAYS}/{REPLAYS}"
    return any(x["detector"] in ("sched:pct", "sched:dfs") and x["fired"]
               and (x.get("replayed") == ok or x.get("consequence", {}).get("replayed") == ok)
               for x in result["runs"])
