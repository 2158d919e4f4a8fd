#!/usr/bin/env python3
"""Writes a copy of a kernel file with one exact text replaced (injected bug).

  mutate.py IN OUT OLD NEW

Fails (exit 1, one line) unless OLD occurs exactly once in IN, so a kernel
whose text moved on cannot make the injected-bug test pass vacuously. Used
by //upstream/pages:mutant_test's genrules; OUT is written atomically.
"""

import os
import sys
import tempfile


def main(argv):
    if len(argv) != 4:
        print("usage: mutate.py IN OUT OLD NEW", file=sys.stderr)
        return 2
    src, out, old, new = argv
    with open(src, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    n = text.count(old)
    if n != 1:
        print(f"mutate: {src}: '{old}' occurs {n} times (expected once)", file=sys.stderr)
        return 1
    directory = os.path.dirname(os.path.abspath(out))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".mutate.")
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text.replace(old, new))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, out)
    except OSError as e:
        print(f"mutate: cannot write {out}: {e.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
