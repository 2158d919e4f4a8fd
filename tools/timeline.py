#!/usr/bin/env python3
"""tools/timeline.py [--svg=OUT.svg] TRACE.json OUT.html: the picture of one controlled execution.

TRACE.json is what a scheduled binary writes with --trace_out (format
"flowcheck-trace 1", sched/trace_out.h); tools/reproduce.sh --timeline=FILE.html
runs both steps. OUT.html is one self-contained page (inline CSS and SVG, no
script, no network asset), written atomically:

  * one lane per logical thread; a grey band where it runs, a dot where it
    reached a decision point (hover: the step, the point's kind, label, lock);
  * a bar per lock held, under the thread's lane, one row per nesting depth,
    coloured by lock class (legend at the top);
  * the failing step marked in red (hover: the FAIL line);
  * the scenario's state after every step (sched::SetStateProbe): a row of
    cells, shaded where it changed, and a table with one line per step.

--svg=OUT.svg also writes the timeline as a standalone SVG (with its title,
FAIL line and legend), for pictures: `rsvg-convert OUT.svg -o OUT.png`.

Column i is decision i and what the chosen thread then ran: the held locks
and the state shown in it are those after that run.

Exit status: 0 written; 2 the trace is unusable (its path and why on
stderr); 3 the page could not be written (path and errno text).
"""

import html
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowcheck_tools import atomic  # noqa: E402

FORMAT = "flowcheck-trace 1"
# Distinct, readable on white; lock classes get them in order of first use.
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
           "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#843c39"]
# Only the standalone SVG (--svg) names its namespace; the page has no URL.
SVG_NS = "http" + "://www.w3.org/2000/svg"
COL = 26          # px per step
LABEL_W = 170     # the lane names
TOP = 34          # the step axis
RUN_H = 12        # the running band of a lane
BAR_H = 9         # one lock bar
STATE_H = 18


class TraceError(Exception):
    """The trace cannot be drawn: str() says why."""


def esc(s):
    return html.escape(str(s), quote=True)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        raise TraceError(f"{path}: {e}") from e
    if not isinstance(trace, dict) or trace.get("format") != FORMAT:
        raise TraceError(f"{path}: not a flowcheck trace (expected format '{FORMAT}')")
    for key in ("scenario", "threads", "steps", "initial", "failure"):
        if key not in trace:
            raise TraceError(f"{path}: no '{key}'")
    return trace


def state_text(state):
    """A probe state as one line: k=v, nested objects in braces."""
    if state is None:
        return ""
    if isinstance(state, dict):
        return " ".join(f"{k}={{{state_text(v)}}}" if isinstance(v, dict) else f"{k}={v}"
                        for k, v in state.items())
    return str(state)


def lock_bars(steps, nthreads):
    """(thread, depth, class, first step, last step) for every held run."""
    bars = []
    open_ = {}  # (thread, depth) -> [class, first]
    for i, s in enumerate(steps):
        held = s.get("held") or []
        seen = set()
        for t in range(nthreads):
            classes = held[t] if t < len(held) else []
            for d, cls in enumerate(classes):
                key = (t, d)
                seen.add(key)
                cur = open_.get(key)
                if cur is not None and cur[0] == cls:
                    continue
                if cur is not None:
                    bars.append((t, d, cur[0], cur[1], i - 1))
                open_[key] = [cls, i]
        for key in [k for k in open_ if k not in seen]:
            cls, first = open_.pop(key)
            bars.append((key[0], key[1], cls, first, i - 1))
    for (t, d), (cls, first) in open_.items():
        bars.append((t, d, cls, first, len(steps) - 1))
    return sorted(bars, key=lambda b: (b[0], b[1], b[3]))


def describe_step(s, names):
    who = "the controller" if s["thread"] < 0 else names[s["thread"]]
    point = s["kind"]
    if s.get("label"):
        point += f" '{s['label']}'"
    if s.get("lock"):
        point += f" {s['lock']}"
    return f"step {s['step']}: {who} at {point}; {names[s['chosen']]} runs"


def layout(trace):
    """The timeline's SVG elements and what the page around them needs."""
    threads = trace["threads"]
    names = [t["name"] for t in threads]
    steps = trace["steps"]
    n = max(len(steps), 1)
    failure = trace["failure"]
    bars = lock_bars(steps, len(threads))
    classes = []
    for s in steps:
        for held in s.get("held") or []:
            for cls in held:
                if cls not in classes:
                    classes.append(cls)
    colour = {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(classes)}
    depth = [0] * len(threads)
    for t, d, _, _, _ in bars:
        depth[t] = max(depth[t], d + 1)
    lane_y, y = [], TOP
    for t in range(len(threads)):
        lane_y.append(y)
        y += 8 + RUN_H + max(depth[t], 1) * (BAR_H + 2) + 8
    state_y = y + 4
    height = state_y + STATE_H + 24
    width = LABEL_W + n * COL + 20

    def x(i):
        return LABEL_W + i * COL

    svg = []
    for i in range(0, n, max(1, 40 // COL) if n <= 60 else 10):
        svg.append(f'<text class="axis" x="{x(i) + COL / 2}" y="{TOP - 12}">{i}</text>')
    for t, name in enumerate(names):
        y0 = lane_y[t]
        h = 8 + RUN_H + max(depth[t], 1) * (BAR_H + 2)
        extra = ""
        if threads[t].get("interrupts", -1) >= 0:
            extra = f" (irq of {names[threads[t]['interrupts']]})"
        svg.append(f'<g class="lane" data-thread="{t}">'
                   f'<rect class="lane-bg lane{t % 2}" x="0" y="{y0}" width="{width}" height="{h}"/>'
                   f'<text class="lane-name" x="6" y="{y0 + 8 + RUN_H}">[{t}] {esc(name + extra)}</text>'
                   '</g>')
    for i, s in enumerate(steps):
        c = s["chosen"]
        svg.append(f'<rect class="run" x="{x(i) + 1}" y="{lane_y[c] + 6}" width="{COL - 2}" '
                   f'height="{RUN_H}"><title>{esc(describe_step(s, names))}</title></rect>')
        if s["thread"] >= 0:
            svg.append(f'<circle class="point point-{esc(s["kind"])}" cx="{x(i) + 2}" '
                       f'cy="{lane_y[s["thread"]] + 6 + RUN_H / 2}" r="3">'
                       f'<title>{esc(describe_step(s, names))}</title></circle>')
    for t, d, cls, first, last in bars:
        by = lane_y[t] + 8 + RUN_H + 2 + d * (BAR_H + 2)
        svg.append(f'<rect class="lock-bar" data-lock="{esc(cls)}" data-thread="{t}" '
                   f'x="{x(first) + 1}" y="{by}" width="{(last - first + 1) * COL - 2}" '
                   f'height="{BAR_H}" fill="{colour[cls]}"><title>{esc(names[t])} holds '
                   f'{esc(cls)} after steps {first}-{last}</title></rect>')
    prev = json.dumps(trace["initial"].get("state"), sort_keys=True)
    probed = any(s.get("state") is not None for s in steps)
    svg.append(f'<text class="lane-name" x="6" y="{state_y + 13}">'
               f'{"state" if probed else "state (no probe)"}</text>')
    for i, s in enumerate(steps):
        cur = json.dumps(s.get("state"), sort_keys=True)
        changed = "changed" if cur != prev else "same"
        prev = cur
        svg.append(f'<rect class="state state-{changed}" x="{x(i) + 1}" y="{state_y}" '
                   f'width="{COL - 2}" height="{STATE_H}"><title>after step {i}: '
                   f'{esc(state_text(s.get("state")))}</title></rect>')
    if failure is not None:
        after = failure.get("after_step", -1)
        fx = x(after + 1)
        svg.append(f'<g class="failure-marker" data-step="{after}">'
                   f'<line x1="{fx}" y1="{TOP - 8}" x2="{fx}" y2="{height - 4}"/>'
                   f'<text x="{fx + 3}" y="{height - 8}">FAIL [{esc(failure["kind"])}]</text>'
                   f'<title>{esc("FAIL [" + failure["kind"] + "] " + failure["line"])}</title></g>')
    return {"svg": svg, "width": width, "height": height, "colour": colour,
            "classes": classes, "names": names}


CSS_SVG = """svg.timeline text { font: 11px sans-serif; fill: #222; }
svg.timeline text.axis { text-anchor: middle; fill: #777; }
.lane0 { fill: #f7f7f7; } .lane1 { fill: #ececec; }
.run { fill: #b0b0b0; }
.point { fill: #333; }
.state-same { fill: #e8eef7; } .state-changed { fill: #8fb3e0; }
.failure-marker line { stroke: #d00; stroke-width: 2; }
.failure-marker text { fill: #d00; font-weight: bold; }"""


def render_svg(trace):
    """A standalone SVG of the timeline with its title, FAIL line and legend
    (for pictures: `rsvg-convert` draws it; the page itself is render())."""
    lay = layout(trace)
    head = 70
    width = max(lay["width"], 700)
    height = lay["height"] + head
    failure = trace["failure"]
    fail = ("FAIL [" + failure["kind"] + "] " + failure["line"]) if failure else "passed"
    legend, lx = [], 110
    for c in lay["classes"]:
        legend.append(f'<rect x="{lx}" y="52" width="14" height="10" fill="{lay["colour"][c]}"/>'
                      f'<text x="{lx + 18}" y="61">{esc(c)}</text>')
        lx += 30 + 7 * len(c)
    return (f'<svg xmlns="{SVG_NS}" class="timeline" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}"><style>{CSS_SVG}</style>'
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff"/>'
            f'<text x="6" y="18" style="font-size:14px;font-weight:bold">'
            f'flowcheck timeline: {esc(trace["scenario"])}</text>'
            f'<text x="6" y="38" style="fill:#c00">{esc(fail)}</text>'
            f'<text x="6" y="61">lock classes:</text>{"".join(legend)}'
            f'<g transform="translate(0,{head})">{"".join(lay["svg"])}</g></svg>\n')


def render(trace):
    """The self-contained HTML page."""
    lay = layout(trace)
    svg = ([f'<svg class="timeline" width="{lay["width"]}" height="{lay["height"]}" '
            f'viewBox="0 0 {lay["width"]} {lay["height"]}" role="img">'] + lay["svg"] + ["</svg>"])
    colour, classes, names = lay["colour"], lay["classes"], lay["names"]
    threads, steps, failure = trace["threads"], trace["steps"], trace["failure"]
    legend = "".join(f'<span class="legend-item"><span class="swatch" style="background:{colour[c]}">'
                     f'&#160;</span>{esc(c)}</span>' for c in classes) or "no lock was held"
    params = " ".join(f"{k}={v}" for k, v in sorted(trace.get("params", {}).items()))
    fail_html = "the execution passed"
    if failure is not None:
        who = "the controller" if failure.get("thread", -1) < 0 else names[failure["thread"]]
        fail_html = (f'<span class="fail">FAIL [{esc(failure["kind"])}] {esc(failure["line"])}</span>'
                     f' (after step {failure.get("after_step")}, while {esc(who)} ran)')
    rows = [f'<tr><td>initial</td><td>after the setup</td>'
            f'<td>{esc(state_text(trace["initial"].get("state")))}</td></tr>']
    for s in steps:
        mark = ' class="failing"' if failure is not None and s["step"] == failure.get("after_step") else ""
        held = "; ".join(f"{names[t]}: {', '.join(h)}" for t, h in enumerate(s.get("held") or []) if h)
        rows.append(f'<tr{mark}><td>{s["step"]}</td><td>{esc(describe_step(s, names))}</td>'
                    f'<td>{esc(state_text(s.get("state")))}'
                    f'{"<br/>held: " + esc(held) if held else ""}</td></tr>')
    title = f"flowcheck timeline: {trace['scenario']}"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<title>{esc(title)}</title>
<style>
body {{ font: 13px/1.4 sans-serif; margin: 16px; color: #222; }}
h1 {{ font-size: 17px; margin: 0 0 6px 0; }}
.meta {{ color: #555; margin-bottom: 6px; }}
.fail {{ color: #c00; font-weight: bold; }}
.legend-item {{ margin-right: 14px; white-space: nowrap; }}
.swatch {{ display: inline-block; width: 14px; height: 10px; margin-right: 4px; }}
.scroll {{ overflow-x: auto; border: 1px solid #ddd; margin: 8px 0 16px 0; }}
{CSS_SVG}
table {{ border-collapse: collapse; }}
td {{ border-top: 1px solid #e4e4e4; padding: 2px 10px 2px 0; vertical-align: top; }}
tr.failing td {{ background: #fde0e0; }}
</style>
</head>
<body>
<h1>{esc(title)}</h1>
<div class="meta">params: {esc(params) or "none"}; trace hash {esc(trace.get("trace_hash", "?"))};
{len(steps)} steps, {len(threads)} threads</div>
<div>{fail_html}</div>
<div class="legend">lock classes: {legend}</div>
<div class="scroll">
{"".join(svg)}
</div>
<h2 style="font-size:15px">State after every step</h2>
<table>
{"".join(rows)}
</table>
</body>
</html>
"""


def main(argv):
    svg_out = None
    if len(argv) == 4 and argv[1].startswith("--svg="):
        svg_out = argv[1][len("--svg="):]
        argv = argv[:1] + argv[2:]
    if len(argv) != 3:
        print("usage: tools/timeline.py [--svg=OUT.svg] TRACE.json OUT.html", file=sys.stderr)
        return 2
    try:
        trace = load(argv[1])
        page = render(trace)
        svg = render_svg(trace) if svg_out else None
    except TraceError as e:
        print(f"timeline: {e}", file=sys.stderr)
        return 2
    except (KeyError, IndexError, TypeError) as e:
        print(f"timeline: {argv[1]}: malformed trace ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    try:
        atomic.write_atomic(argv[2], page)
        if svg_out:
            atomic.write_atomic(svg_out, svg)
    except atomic.WriteError as e:
        print(f"timeline: {e}", file=sys.stderr)
        return 3
    print(f"flowcheck: timeline written: {os.path.abspath(argv[2])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
