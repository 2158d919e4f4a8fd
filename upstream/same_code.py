#!/usr/bin/env python3
"""Whether a second kernel text compiles to the same code as a first one.

    same_code.py --base=SRC [--base_profile=P] --tree=SRC [--profile=P]
                 --functions=LIST[:APIS] [--functions=LIST[:APIS] ...]

SRC is a tid_rdma.c, P a driver profile (upstream/profiles/*.profile; hfi1's
when omitted), LIST a function list (upstream/functions.txt,
upstream/pages/functions.txt), APIS the kernel APIs its shims provide
(upstream/shim/apis.txt, upstream/pages/apis.txt: the shims each text selects
count too). Both texts go through the extraction the build
runs (extract_kernel.extract) and are compared after three things that do not
change what is computed are set aside: `#line` markers, comment lines, and
the profile's `#define DRIVER_NAME HARNESS_NAME` block (its names are
replaced by what they stand for). What remains is every function's body, the
shim headers the text selects and the redirections, token for token.

tools/test.sh runs the whole suite on a second text only when this says the
code differs: the same code was just tested in full on the first text (the
line numbers in reports are the one thing that differs).

Prints one line. Exit: 0 the same code, 1 it differs (the line names the
functions), 2 an extraction failed or bad usage.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extract_kernel as ek  # noqa: E402
from driver_profile import Profile, ProfileError, parse_profile  # noqa: E402

_DEFINE = re.compile(r"#define (\w+) (\w+)$")
_UNDEF = re.compile(r"#undef (\w+)$")
_HEADER = re.compile(r"// \S+:\d+ (\w+) \((?:static|extern) in the kernel\)$")
_PROFILE_END = "// Every function is renamed"


def normalized_parts(unit):
    """{part: text} of an extracted unit: "(unit)" for what precedes the first
    function, then one entry per function, each without line markers and
    comments and with the profile's names replaced."""
    lines = unit.split("\n")
    end = next((i for i, l in enumerate(lines) if l.startswith(_PROFILE_END)), 0)
    names = {}
    for l in lines[:end]:
        m = _DEFINE.match(l)
        if m:
            names[m.group(1)] = m.group(2)
    parts, part = {}, "(unit)"
    for i, l in enumerate(lines):
        m = _HEADER.match(l)
        if m:
            part = m.group(1)
            continue
        if not l.strip() or l.startswith("#line ") or l.lstrip().startswith("//"):
            continue
        m = _DEFINE.match(l) or _UNDEF.match(l)
        if m and m.group(1) in names and (i < end or l.startswith("#undef")):
            continue
        parts.setdefault(part, []).append(l)
    word = re.compile(r"\b[A-Za-z_]\w*\b")
    return {p: word.sub(lambda m: names.get(m.group(0), m.group(0)), "\n".join(ls))
            for p, ls in parts.items()}


def differing(base_unit, tree_unit):
    """The parts (normalized_parts) whose text differs, in the base's order;
    a part only one side has counts as differing."""
    a, b = normalized_parts(base_unit), normalized_parts(tree_unit)
    return [p for p in list(a) + [p for p in b if p not in a] if a.get(p) != b.get(p)]


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    except OSError as e:
        raise ek.ExtractError(f"cannot read {path}: {e.strerror}")


def _units(source, profile_path, lists):
    profile = Profile()
    if profile_path:
        profile = parse_profile(_read(profile_path), display=os.path.basename(profile_path))
    text = _read(source)
    units = []
    for spec in lists:
        functions, _, apis = spec.partition(":")
        units.append(ek.extract(
            text, ek.parse_functions(_read(functions)), display=f"{profile.directory}/tid_rdma.c",
            profile=profile, apis=ek.parse_apis(_read(apis), display=apis) if apis else None))
    return units


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="the first text's tid_rdma.c")
    ap.add_argument("--base_profile", help="its driver profile (default: hfi1's)")
    ap.add_argument("--tree", required=True, help="the second text's tid_rdma.c")
    ap.add_argument("--profile", help="its driver profile (default: hfi1's)")
    ap.add_argument("--functions", action="append", required=True, metavar="LIST[:APIS]",
                    help="a function list and its API table (repeatable)")
    args = ap.parse_args(argv)
    try:
        base = _units(args.base, args.base_profile, args.functions)
        tree = _units(args.tree, args.profile, args.functions)
    except (ek.ExtractError, ProfileError) as e:
        print(f"same_code: {e}", file=sys.stderr)
        return 2
    diff = [p for b, t in zip(base, tree) for p in differing(b, t)]
    count = sum(len(normalized_parts(b)) - 1 for b in base)
    if diff:
        print(f"same_code: {args.tree} differs from {args.base} in {len(diff)} part(s): "
              + ", ".join(diff))
        return 1
    print(f"same_code: {args.tree}: its {count} functions are {args.base}'s, token for token "
          "(line markers, comments and the profile's names aside)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
