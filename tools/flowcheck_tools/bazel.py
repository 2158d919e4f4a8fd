"""Bazel as the tools call it: build, where the binaries are, query by tag.

Every function runs `bazel` in `cwd` (the repository root unless given; the
self-test passes its scratch copy) and raises subprocess.CalledProcessError
when bazel fails.
"""

import os
import subprocess

from flowcheck_tools import ROOT


def _config_flags(config):
    return [f"--config={config}"] if config else []


def argv(verb, *args, config=None):
    """The command line `bazel VERB [--config=config] ARGS`, for a caller that
    runs it itself (timed, with a deadline, in a scratch copy)."""
    return ["bazel", verb, *_config_flags(config), *args]


def output(*args, cwd=ROOT):
    """stdout of `bazel ARGS` (stderr, bazel's progress, is dropped)."""
    return subprocess.run(["bazel", *args], cwd=cwd, check=True, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout


def build(labels, config=None, cwd=ROOT, quiet=False):
    """bazel build [--config=config] labels, its progress on the terminal; or,
    quiet, nothing printed: bazel's errors are then the raised error's stderr."""
    if not quiet:
        subprocess.run(argv("build", *labels, config=config), cwd=cwd, check=True)
        return
    subprocess.run(argv("build", "--ui_event_filters=-info,-stdout", "--noshow_progress", *labels,
                        config=config), cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def bin_dir(config=None, cwd=ROOT):
    """bazel-bin of `config` (each config has its own output directory)."""
    return output("info", *_config_flags(config), "bazel-bin", cwd=cwd).strip()


def binary(label, config=None, cwd=ROOT, bin_root=None):
    """Path of the binary `label` (//pkg:name) builds; bin_root saves a bazel info."""
    pkg, name = split_label(label)
    return os.path.join(bin_root or bin_dir(config, cwd), pkg, name)


def shutdown(cwd=ROOT):
    """Stops the bazel server of workspace `cwd`; never fails."""
    subprocess.run(["bazel", "shutdown"], cwd=cwd, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def split_label(label):
    """"//fuzz:pure_fuzz_fuzzer" -> ("fuzz", "pure_fuzz_fuzzer")."""
    pkg, _, name = label[2:].partition(":")
    return pkg, name


def query_tagged(tag, kind, unless=None, cwd=ROOT):
    """Labels of rules of `kind` tagged `tag`, minus those also tagged `unless`."""
    expr = f'attr(tags, "\\b{tag}\\b", kind({kind}, //...))'
    if unless:
        expr += f' except attr(tags, "\\b{unless}\\b", //...)'
    return [line.strip() for line in output("query", expr, cwd=cwd).splitlines() if line.strip()]
