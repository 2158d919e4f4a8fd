#!/usr/bin/env python3
"""Speed goals as same-run ratios: one runner, one table, one verdict per goal.

The speed scripts (lockcheck/bench_ratios.sh, core/reserve_benchmark_ratio.sh,
tools/stress_benchmark.sh) are thin wrappers around this file:

  ratios.py [SPEC...] gbench [--repetitions=R] [--min_time=S] -- BINARY [ARGS...]
  ratios.py [SPEC...] commands --json_key=KEY --variant NAME=CMD [--variant ...]

SPEC:
  --title=TEXT          first line of the output
  --rounds=N            rounds (default 15)
  --ratio M B           a table row: measurement M against baseline B
                        (repeatable; names as the benchmark or variant prints them)
  --goal LABEL LIMIT REGEX
                        every ratio row whose "M vs B" matches REGEX must be
                        <= LIMIT (repeatable); rows in no goal are reference
  --higher_is_better    values are rates (ops/s): the ratio is B / M, so a ratio
                        above 1 still means "M is slower than B"

How it measures on a busy machine: the run is split into ROUNDS rounds, and
every measurement runs once in each round, close in time to its baseline, so
a neighbour's load hits both alike. A row's ratio is computed per round, and
the printed ratio is the median over the rounds (the range is printed too).
  gbench    one round = one run of a Google Benchmark binary, every benchmark
            REPETITIONS times in random interleaved order; a benchmark's value
            in the round is the median CPU time of its repetitions (ns).
  commands  one round = each variant's command once, in an order rotated every
            round; each command writes JSON to the path substituted for {json},
            and the value is that JSON's KEY.

Output: the table, then one line per goal,
  LABEL: WORST x (M vs B), goal <= LIMIT x: PASS|FAIL
Exit status: 0 every goal met, 1 a goal missed, 2 a command failed or its
output lacked a measurement (the message names it).
"""

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile


class RunError(Exception):
    """A command failed or printed no usable measurement: exit status 2."""


def _ns(value, unit):
    return value * {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]


def parse_gbench_json(text):
    """{benchmark name: median CPU time in ns of its repetitions} of one
    Google Benchmark JSON report; also every label the benchmarks set."""
    try:
        report = json.loads(text)
    except ValueError as e:
        raise RunError(f"benchmark output is not JSON ({e})")
    times, labels = {}, set()
    for b in report.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        if b.get("error_occurred"):
            raise RunError(f"{b.get('name')}: {b.get('error_message', 'error')}")
        times.setdefault(b["run_name"], []).append(_ns(b["cpu_time"], b.get("time_unit", "ns")))
        if b.get("label"):
            labels.add(b["label"])
    return {name: statistics.median(v) for name, v in times.items()}, labels


def gbench_round(command, repetitions, min_time):
    """One round: `command` once, every benchmark `repetitions` times,
    interleaved at random. Returns ({name: ns}, labels)."""
    args = command + [
        "--benchmark_format=json",
        f"--benchmark_repetitions={repetitions}",
        "--benchmark_enable_random_interleaving=true",
        f"--benchmark_min_time={min_time}",
    ]
    try:
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise RunError(f"cannot run {command[0]}: {e.strerror}")
    if p.returncode != 0:
        raise RunError(f"{shlex.join(command)} exited {p.returncode}:\n{p.stderr[-2000:]}")
    return parse_gbench_json(p.stdout)


def commands_round(variants, json_key, round_index, workdir):
    """One round: each (name, command) once, starting at a different variant
    every round. {json} in a command is replaced by a fresh path; the value is
    that file's `json_key`. Returns {name: value}."""
    values = {}
    k = round_index % len(variants)
    for name, command in variants[k:] + variants[:k]:
        path = os.path.join(workdir, f"{name}.{round_index}.json")
        log = os.path.join(workdir, f"{name}.{round_index}.log")
        with open(log, "w") as out:
            rc = subprocess.run(command.replace("{json}", shlex.quote(path)), shell=True,
                                stdout=out, stderr=subprocess.STDOUT).returncode
        if rc != 0:
            with open(log) as f:
                tail = "".join(f.readlines()[-20:])
            raise RunError(f"variant {name} (round {round_index + 1}) exited {rc}:\n{tail}")
        try:
            with open(path) as f:
                values[name] = float(json.load(f)[json_key])
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise RunError(f"variant {name}: no {json_key!r} in {path} ({e})")
        print(f"  round {round_index + 1} {name}: {json_key} {values[name]:g}", file=sys.stderr)
    return values


class Result:
    """What a set of rounds says about each ratio row and goal."""

    def __init__(self, rounds, ratios, goals, higher_is_better):
        self.rounds = rounds            # [{name: value}] per round
        self.ratios = ratios            # [(measured, baseline)]
        self.goals = goals              # [(label, limit, regex)]
        self.higher_is_better = higher_is_better

    def value(self, name):
        return statistics.median(r[name] for r in self.rounds)

    def per_round(self, measured, baseline):
        if self.higher_is_better:
            return [r[baseline] / r[measured] for r in self.rounds]
        return [r[measured] / r[baseline] for r in self.rounds]

    def ratio(self, measured, baseline):
        return statistics.median(self.per_round(measured, baseline))

    def verdicts(self):
        """[(label, limit, worst ratio, its row, met)] per goal."""
        out = []
        for label, limit, regex in self.goals:
            rows = [(self.ratio(m, b), f"{m} vs {b}") for m, b in self.ratios
                    if re.search(regex, f"{m} vs {b}")]
            if not rows:
                raise RunError(f"goal {label!r}: no ratio row matches {regex!r}")
            worst, row = max(rows)
            out.append((label, limit, worst, row, worst <= limit))
        return out


def check_complete(rounds, ratios):
    for i, r in enumerate(rounds):
        for name in sorted({n for pair in ratios for n in pair}):
            if name not in r:
                raise RunError(f"{name} missing from round {i + 1}'s output")
            if r[name] <= 0:
                raise RunError(f"{name} measured {r[name]} in round {i + 1}")


def fmt_limit(x):
    return f"{x:g}"


def render(title, unit, result):
    """The table and the goal lines, as text."""
    in_goal = set()
    for _, _, regex in result.goals:
        in_goal.update((m, b) for m, b in result.ratios if re.search(regex, f"{m} vs {b}"))
    names = []
    for m, b in result.ratios:
        for n in (b, m):
            if n not in names:
                names.append(n)
    width = max(len(n) for n in names)
    header = f"ratio (median of {len(result.rounds)} rounds)"
    rwidth = max([len(header)] + [len(f"{m} vs {b}") for m, b in result.ratios])
    lines = [title]
    lines.append(f"  {'measurement':<{width}}  {'median':>12}")
    for n in names:
        value = f"{result.value(n):.2f}" if unit == "ns" else f"{result.value(n):.0f}"
        lines.append(f"  {n:<{width}}  {value:>12} {unit}")
    lines.append(f"  {header:<{rwidth}}  {'ratio':>6}  range")
    for m, b in result.ratios:
        per = result.per_round(m, b)
        note = "" if (m, b) in in_goal else "  (reference)"
        lines.append(f"  {m + ' vs ' + b:<{rwidth}}  {result.ratio(m, b):>5.2f}x"
                     f"  {min(per):.2f}-{max(per):.2f}x{note}")
    for label, limit, worst, row, met in result.verdicts():
        lines.append(f"{label}: {worst:.2f}x ({row}), goal <= {fmt_limit(limit)}x: "
                     f"{'PASS' if met else 'FAIL'}")
    return "\n".join(lines)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--title", required=True)
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--ratio", nargs=2, action="append", default=[], metavar=("M", "B"))
    p.add_argument("--goal", nargs=3, action="append", default=[],
                   metavar=("LABEL", "LIMIT", "REGEX"))
    p.add_argument("--higher_is_better", action="store_true")
    sub = p.add_subparsers(dest="mode", required=True)
    g = sub.add_parser("gbench")
    g.add_argument("--repetitions", type=int, default=3)
    g.add_argument("--min_time", type=float, default=0.05)
    g.add_argument("command", nargs=argparse.REMAINDER)
    c = sub.add_parser("commands")
    c.add_argument("--json_key", required=True)
    c.add_argument("--variant", action="append", default=[], metavar="NAME=CMD")
    args = p.parse_args(argv)
    if not args.ratio:
        p.error("at least one --ratio")
    if args.rounds < 1:
        p.error("--rounds must be >= 1")
    args.goal = [(label, float(limit), regex) for label, limit, regex in args.goal]
    if args.mode == "gbench":
        if args.command[:1] == ["--"]:
            args.command = args.command[1:]
        if not args.command:
            p.error("gbench needs -- BINARY [ARGS...]")
    else:
        if not args.variant or any("=" not in v for v in args.variant):
            p.error("commands needs --variant NAME=CMD ...")
        args.variant = [tuple(v.split("=", 1)) for v in args.variant]
    return args


def main(argv):
    args = parse_args(argv)
    unit = "ops/s" if args.higher_is_better else "ns"
    rounds = []
    try:
        if args.mode == "gbench":
            for _ in range(args.rounds):
                values, labels = gbench_round(args.command, args.repetitions, args.min_time)
                bad = [l for l in labels if "checks ON" in l]
                if bad:
                    raise RunError(f"the benchmark says {bad[0]!r}: lockcheck's checks are "
                                   "compiled in; run it with --config=bench")
                rounds.append(values)
        else:
            with tempfile.TemporaryDirectory() as work:
                for i in range(args.rounds):
                    rounds.append(commands_round(args.variant, args.json_key, i, work))
        check_complete(rounds, args.ratio)
        result = Result(rounds, args.ratio, args.goal, args.higher_is_better)
        print(render(args.title, unit, result))
        return 0 if all(v[4] for v in result.verdicts()) else 1
    except RunError as e:
        print(f"ratios: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
