"""A fuzz target's own libFuzzer flags: the one reader of T.options and T.dict.

Next to the BUILD file that defines fuzz target T, T.options holds one libFuzzer
flag per line (blank lines and lines starting with '#' ignored) and T.dict is
its dictionary. The campaign, the self-test, the speed benchmark and the
input-length study all run targets with these, so they read them here.
"""

import os


def options(pkg_dir, target):
    """The lines of pkg_dir/target.options ([] if there is none)."""
    path = os.path.join(pkg_dir, target + ".options")
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def flags(pkg_dir, target):
    """options() plus -dict=pkg_dir/target.dict if that file exists."""
    d = os.path.join(pkg_dir, target + ".dict")
    return options(pkg_dir, target) + (["-dict=" + d] if os.path.isfile(d) else [])


def max_len(pkg_dir, target):
    """The target's -max_len from its .options, or None if it sets none."""
    for opt in options(pkg_dir, target):
        if opt.startswith("-max_len="):
            return int(opt.split("=", 1)[1])
    return None
