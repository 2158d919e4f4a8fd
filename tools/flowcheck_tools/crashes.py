"""Crash files grouped by signature: the first file of each kept, the others
counted and deleted.

replay(binary, ...) runs one input once through a fuzz target's own libFuzzer
binary (the build that found it: the same sanitizers, libFuzzer's own timeout
and out-of-memory reports) and returns its signature (flowcheck_tools.
signature.of_output). tools/reproduce.sh --signature and the campaign both
use it.

CrashIndex keeps OUT/fuzz/T/signatures.json: per signature its first file
and the names of every crash file that had it (the count). add() of a crash
file replays it; a new signature keeps the file, a known one only records
its name and then deletes it. The index is written (atomically) before the
file is deleted, so a kill at any moment loses no count and no first file:
a file whose name the index already holds is only deleted on the next pass.
libFuzzer names crash files by their content's SHA-1, so a name counted once
is the same input and is never counted twice.
"""

import json
import os
import shutil
import signal as _signal
import tempfile

from flowcheck_tools import libfuzzer, process, signature
from flowcheck_tools.atomic import WriteError, write_json

# libFuzzer's -timeout for a replay; the replay itself is killed 30 s later.
REPLAY_TIMEOUT_S = 60
NO_FAILURE = "no failure on replay"


def replay_command(binary, pkg_dir, target, path, scratch):
    """libFuzzer running `path` once, with the target's .options; crash files
    it writes go to `scratch`."""
    return [binary, *libfuzzer.options(pkg_dir, target), f"-timeout={REPLAY_TIMEOUT_S}",
            f"-artifact_prefix={scratch.rstrip('/')}/", path]


def replay(binary, pkg_dir, target, path, strict):
    """(signature or None, exit code, output) of one replay of `path`.
    strict: FLOWCHECK_FUZZ_STRICT=1 (upstream divergences fail), else unset."""
    env = {k: v for k, v in os.environ.items() if k != "FLOWCHECK_FUZZ_STRICT"}
    if strict:
        env["FLOWCHECK_FUZZ_STRICT"] = "1"
    scratch = tempfile.mkdtemp(prefix="flowcheck-replay-")
    try:
        env["TMPDIR"] = scratch
        rc, out, _, timed_out = process.run_in_group(
            replay_command(binary, pkg_dir, target, path, scratch), cwd=scratch,
            timeout=REPLAY_TIMEOUT_S + 30, env=env)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if timed_out:
        return "libfuzzer timeout", rc, out
    sig = signature.of_output(out)
    if sig is None and rc != 0:
        how = f"signal {-rc}" if rc < 0 else f"exit {rc}"
        if rc < 0:
            how += f" ({_signal.Signals(-rc).name})" if -rc in _signal.valid_signals() else ""
        sig = f"unrecognised failure ({how})"
    return sig, rc, out


class CrashIndex:
    """The signatures of one target's crash directory (see the module doc)."""

    def __init__(self, crash_dir, index_path):
        self.crash_dir = crash_dir
        self.path = index_path
        self.signatures = {}
        try:
            with open(index_path) as f:
                data = json.load(f)
            self.signatures = data.get("signatures", {})
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as e:
            raise WriteError(f"cannot read {index_path}: {getattr(e, 'strerror', None) or e}")

    def _known(self):
        return {n: sig for sig, e in self.signatures.items() for n in e["files"]}

    def pending(self):
        """Crash files not yet grouped, oldest first (the first file of a
        signature is the one found first)."""
        names = [n for n in os.listdir(self.crash_dir)
                 if os.path.isfile(os.path.join(self.crash_dir, n)) and not n.startswith(".")]
        firsts = {e["first"] for e in self.signatures.values()}
        paths = [os.path.join(self.crash_dir, n) for n in names if n not in firsts]
        return sorted(paths, key=lambda p: (os.stat(p).st_mtime, p))

    def add(self, path, sig):
        """Records crash file `path` under `sig`; deletes it unless it is the
        signature's first file. Returns True if it was kept."""
        name = os.path.basename(path)
        known = self._known()
        if name in known:  # counted before a kill: only the deletion is left
            sig = known[name]
        else:
            entry = self.signatures.setdefault(sig, {"first": name, "files": []})
            if not os.path.exists(os.path.join(self.crash_dir, entry["first"])):
                entry["first"] = name  # the kept file was removed by hand
            entry["files"].append(name)
            write_json(self.path, {"signatures": self.signatures})
        if self.signatures[sig]["first"] == name:
            return True
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as e:
            raise WriteError(f"cannot delete the duplicate crash {path}: {e.strerror}") from e
        return False

    def signature_of(self, name):
        return self._known().get(name)

    def row(self, sig, this_run):
        """The summary's row for `sig`: count this run, in all, first file."""
        e = self.signatures[sig]
        return {"signature": sig, "count": this_run, "total": len(e["files"]),
                "first": os.path.join(self.crash_dir, e["first"])}
