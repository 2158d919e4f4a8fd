#!/usr/bin/env python3
"""Line and branch coverage per source directory, from `llvm-cov export
-summary-only` JSON (tools/coverage.sh runs it).

  coverage_summary.py EXPORT.json --dirs=core/,upstream/ [--uncovered=TEXT_REPORT]

Prints, for every directory at or under one of --dirs that holds a covered
source file (sorted), one line:
  flowcheck: coverage core/: lines 91.2% (1234/1353), branches 80.1% (321/401)
A directory's figures count its own files only, not its subdirectories'.
Paths in the JSON may be absolute or relative; the part from the first
path component naming a --dirs root on is used.

--uncovered=FILE: also reads `llvm-cov show` text output (FILE) and prints,
per source file of those directories, the line numbers executed zero times:
  flowcheck: uncovered core/tid_rdma_flow.cc: 120-123, 250
Exit 0; 2 when the JSON is unreadable or no file matches --dirs.
"""

import argparse
import json
import os
import re
import sys


def rel_path(path, roots):
    """path from its first component that starts one of roots, else None."""
    parts = path.replace("\\", "/").split("/")
    for i in range(len(parts)):
        cand = "/".join(parts[i:])
        if any(cand.startswith(r) for r in roots):
            return cand
    return None


def per_directory(export, roots):
    """{dir/: [lines_covered, lines_count, branches_covered, branches_count]}."""
    dirs = {}
    for data in export.get("data", []):
        for f in data.get("files", []):
            rel = rel_path(f["filename"], roots)
            if rel is None:
                continue
            d = os.path.dirname(rel) + "/"
            s = f["summary"]
            acc = dirs.setdefault(d, [0, 0, 0, 0])
            acc[0] += s["lines"]["covered"]
            acc[1] += s["lines"]["count"]
            acc[2] += s["branches"]["covered"]
            acc[3] += s["branches"]["count"]
    return dirs


def pct(covered, count):
    return f"{100.0 * covered / count:.1f}%" if count else "n/a"


def summary_lines(dirs):
    return [f"flowcheck: coverage {d}: lines {pct(lc, ln)} ({lc}/{ln}), "
            f"branches {pct(bc, bn)} ({bc}/{bn})"
            for d, (lc, ln, bc, bn) in sorted(dirs.items())]


# `llvm-cov show` text: a file header line "/path/file.cc:" then
# "  LINE|  COUNT|source" rows; COUNT is blank for lines with no code.
_ROW = re.compile(r"^\s*(\d+)\|\s*([0-9.]+[kMGTPE]?)?\|")


def uncovered(text, roots):
    """{rel file: [line numbers with count 0]} for files under roots."""
    out, current = {}, None
    for line in text.splitlines():
        if line.endswith(":") and "|" not in line and not line.startswith(" "):
            current = rel_path(line[:-1], roots)
            if current is not None:
                out.setdefault(current, [])
            continue
        m = _ROW.match(line)
        if current is not None and m and m.group(2) == "0":
            out[current].append(int(m.group(1)))
    return out


def ranges(nums):
    """[1, 2, 3, 7] -> "1-3, 7"."""
    out, start, prev = [], None, None
    for n in nums + [None]:
        if start is not None and (n is None or n != prev + 1):
            out.append(f"{start}-{prev}" if prev != start else f"{start}")
            start = None
        if n is not None and start is None:
            start = n
        prev = n
    return ", ".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("export")
    p.add_argument("--dirs", required=True)
    p.add_argument("--uncovered")
    a = p.parse_args(argv)
    roots = [d if d.endswith("/") else d + "/" for d in a.dirs.split(",") if d]
    try:
        with open(a.export) as f:
            export = json.load(f)
    except (OSError, ValueError) as e:
        print(f"coverage_summary: cannot read {a.export}: {e}", file=sys.stderr)
        return 2
    dirs = per_directory(export, roots)
    if not dirs:
        print(f"coverage_summary: no covered file under {', '.join(roots)}", file=sys.stderr)
        return 2
    for line in summary_lines(dirs):
        print(line)
    if a.uncovered:
        with open(a.uncovered) as f:
            for path, lines in sorted(uncovered(f.read(), roots).items()):
                if lines:
                    print(f"flowcheck: uncovered {path}: {ranges(lines)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
