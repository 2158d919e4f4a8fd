"""libFuzzer command lines, with each fuzz target's own flags.

Next to the BUILD file that defines fuzz target T, T.options holds one
libFuzzer flag per line (blank lines and lines starting with '#' ignored) and
T.dict is its dictionary. The campaign, the self-test and the speed benchmark
run targets through command() so that each run uses them.

libFuzzer writes its scratch files (the -fork work directory, the merge
control file) under $TMPDIR, named with its own pid; env_with_tmpdir() gives
a run a private one, which the caller removes when the run is over, however
it ended.
"""

import os
import re

# libFuzzer's status line, -fork mode:
# "#4096: cov: 86 ft: 86 corp: 145 exec/s 2048 oom/timeout/crash: 0/0/0 time: 2s job: 1 ..."
STATUS_RE = re.compile(
    r"^#(\d+):\s+cov: (\d+) ft: (\d+) corp: (\d+) exec/s:? (\d+) "
    r"oom/timeout/crash: (\d+)/(\d+)/(\d+) time: (\d+)s")
FINAL_STAT_RE = re.compile(r"^stat::(\w+):\s+(\d+)", re.M)


def options(pkg_dir, target):
    """The flags in pkg_dir/target.options ([] if there is none)."""
    path = os.path.join(pkg_dir, target + ".options")
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def flags(pkg_dir, target, dictionary=True):
    """options() plus -dict=pkg_dir/target.dict if asked for and present."""
    d = os.path.join(pkg_dir, target + ".dict")
    use_dict = dictionary and os.path.isfile(d)
    return options(pkg_dir, target) + (["-dict=" + d] if use_dict else [])


def command(binary, pkg_dir, target, corpus_dirs, *, fork=None, seed=None, seconds=None,
            artifact_prefix=None, final_stats=False, dictionary=True, ignore_crashes=False):
    """The command line fuzzing `target` with `binary` from corpus_dirs (the
    first one receives new inputs). pkg_dir holds target's .options/.dict;
    binary may be another target's (the benchmark's empty target).
    ignore_crashes (with fork): a crashing job writes its crash file and the
    run goes on (the campaign groups crashes by signature afterwards)."""
    cmd = [binary]
    if fork:
        cmd.append(f"-fork={fork}")
        if ignore_crashes:
            cmd.append("-ignore_crashes=1")
    if seed is not None:
        cmd.append(f"-seed={seed}")
    if seconds is not None:
        cmd.append(f"-max_total_time={seconds}")
    if artifact_prefix is not None:
        cmd.append(f"-artifact_prefix={artifact_prefix.rstrip('/')}/")
    if final_stats:
        cmd.append("-print_final_stats=1")
    return cmd + flags(pkg_dir, target, dictionary) + list(corpus_dirs)


def merge_command(binary, into, from_dirs, artifact_prefix=None):
    """Adds to the directory `into` the inputs of from_dirs that add coverage
    to what `into` holds (into empty: minimizes from_dirs into it). Inputs
    already in `into` are never removed or rewritten. An input that crashes
    is skipped; its crash file goes to artifact_prefix (default: the cwd)."""
    prefix = [f"-artifact_prefix={artifact_prefix.rstrip('/')}/"] if artifact_prefix else []
    return [binary, "-merge=1", *prefix, into, *from_dirs]


def env_with_tmpdir(tmpdir):
    """os.environ with TMPDIR=tmpdir: libFuzzer's scratch files go there."""
    return {**os.environ, "TMPDIR": tmpdir}
