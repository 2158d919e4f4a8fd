#!/usr/bin/env python3
"""Every relative link in README.md and docs/*.md names a file that exists,
and every #anchor on one of our markdown files names one of its headings
(GitHub's anchor rule: lower case, punctuation dropped, spaces to '-')."""

import glob
import os
import re
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchor(heading):
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path):
    with open(path, encoding="utf-8") as f:
        return {anchor(m.group(1)) for m in re.finditer(r"(?m)^#+ (.+)$", f.read())}


def broken_links(root=ROOT):
    out = []
    for doc in ["README.md"] + sorted(glob.glob("docs/*.md", root_dir=root)):
        here = os.path.dirname(os.path.join(root, doc))
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            text = f.read()
        for m in LINK.finditer(text):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            path, _, frag = target.partition("#")
            full = os.path.join(here, path) if path else os.path.join(root, doc)
            if not os.path.exists(full):
                out.append(f"{doc}: {target}: no such file")
            elif frag and full.endswith(".md") and frag not in anchors(full):
                out.append(f"{doc}: {target}: no heading '#{frag}'")
    return out


class DocsLinks(unittest.TestCase):
    def test_every_link_resolves(self):
        self.assertEqual(broken_links(), [])

    def test_a_broken_link_is_found(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "docs"))
            with open(os.path.join(d, "README.md"), "w") as f:
                f.write("[a](docs/a.md#real) [b](docs/gone.md) [c](docs/a.md#nope)\n")
            with open(os.path.join(d, "docs", "a.md"), "w") as f:
                f.write("# Real\n")
            self.assertEqual(broken_links(d), ["README.md: docs/gone.md: no such file",
                                               "README.md: docs/a.md#nope: no heading '#nope'"])


if __name__ == "__main__":
    sys.exit(unittest.main())
