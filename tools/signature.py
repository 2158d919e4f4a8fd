#!/usr/bin/env python3
"""tools/reproduce.sh --signature [--strict] [--target=NAME] FILE

Prints FILE's crash signature, one line (flowcheck_tools/signature.py says
what it holds), by replaying FILE once through its fuzz target's libFuzzer
binary built with --config=fuzz: the same binary, replay and signature
function the campaign uses to group its crash files, so the line is the one
the campaign's summary shows for that file. The target is --target, else
the one //fuzz:reproduce names from FILE's header. --strict: upstream
divergences fail (crash files of a campaign run with FLOWCHECK_FUZZ_STRICT=1).

Exit status: 1 the input failed (its signature printed), 0 it passes
("no failure on replay" printed), 2 unusable file or flags, 3 a build failed.
Errors go to stderr. Relative paths are taken from the current directory.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowcheck_tools import ROOT, bazel  # noqa: E402
from flowcheck_tools.crashes import NO_FAILURE, replay  # noqa: E402

USAGE = "usage: tools/reproduce.sh --signature [--strict] [--target=NAME] FILE"


def fail(msg, code):
    print(f"reproduce.sh: {msg}", file=sys.stderr)
    sys.exit(code)


def parse(argv):
    strict, target, files = False, None, []
    for a in argv:
        if a == "--signature":
            continue
        if a == "--strict":
            strict = True
        elif a.startswith("--target=") and len(a) > 9:
            target = a[9:]
        elif a.startswith("-") and a != "-":
            fail(f"{a} does not go with --signature\n{USAGE}", 2)
        else:
            files.append(a)
    if len(files) != 1:
        fail(("no input file" if not files else "more than one input file") + "\n" + USAGE, 2)
    path = os.path.abspath(files[0])
    if not os.path.isfile(path):
        fail(f"cannot read {path}: " + ("not a regular file" if os.path.exists(path)
                                        else "No such file or directory"), 2)
    return strict, target, path


def build(labels, config=None):
    try:
        bazel.build(labels, config, quiet=True)
        return bazel.bin_dir(config)
    except subprocess.CalledProcessError as e:
        sys.stderr.write(e.stderr or "")
        fail(f"building {' '.join(labels)} failed (exit 3; the input was not replayed)", 3)


def target_of(path):
    """The target //fuzz:reproduce (the one decoder) names for the file."""
    binary = os.path.join(build(["//fuzz:reproduce"]), "fuzz", "reproduce")
    r = subprocess.run([binary, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, errors="replace")
    m = re.search(r"^input: (\w+) v\d+", r.stdout, re.M)
    if not m:
        sys.stderr.write(r.stderr)
        fail(f"{path}: no fuzz target decodes it", 2)
    return m.group(1)


def main():
    strict, target, path = parse(sys.argv[1:])
    name = target or target_of(path)
    try:
        labels = {bazel.split_label(l)[1][: -len("_fuzzer")]: l
                  for l in bazel.query_tagged("fuzzer", "cc_binary")}
    except subprocess.CalledProcessError:
        fail("bazel query for the fuzz targets failed (exit 3; the input was not replayed)", 3)
    if name not in labels:
        fail(f"unknown fuzz target {name} (known: {', '.join(sorted(labels))})", 2)
    pkg, binary = bazel.split_label(labels[name])
    bin_dir = build([labels[name]], "fuzz")
    sig = replay(os.path.join(bin_dir, pkg, binary), os.path.join(ROOT, pkg), name, path,
                 strict)[0]
    print(sig or NO_FAILURE)
    return 1 if sig else 0


if __name__ == "__main__":
    sys.exit(main())
