"""A live fuzz corpus that is replaced only whole and survives a kill at any moment.

The live corpus is the directory PATH (out/fuzz/T/corpus). A replacement
(the merge after each campaign run or of --merge; --minimize's corpus.min) is
built beside it and swapped in by renames; every directory a kill can leave
behind has a name that says what it holds:

  PATH.building   being filled: incomplete, never used
  PATH.ready      complete (filled, fsynced), not yet the live corpus
  PATH.old        the previous live corpus, complete, being deleted
  PATH.merging    (older campaigns) being filled

replace(build) goes  PATH + PATH.building -> PATH + PATH.ready
                     -> PATH (new) + PATH.ready (the old one), exchanged by one
                        renameat2(RENAME_EXCHANGE): PATH never goes missing
                     -> PATH + PATH.old -> PATH  (each arrow one rename or rmtree).
Where the kernel or the filesystem cannot exchange (EINVAL, ENOSYS) the swap
is two renames, PATH -> PATH.old and PATH.ready -> PATH, with a moment
without PATH that recover() repairs.
recover() at start-up makes PATH exist again from the most recent complete
copy (PATH.ready, else PATH.old, else what a merge had written so far) and
only then deletes the leftovers, so the only copy is never deleted. Before
this scheme the campaign left PATH.old alone (no PATH) when killed between
its two renames; recover() restores that too.

One process at a time per corpus: the caller holds a lock on its output
directory (the campaign does).
"""

import contextlib
import ctypes
import errno
import os
import shutil
import signal

from flowcheck_tools.atomic import fsync_path


class LiveCorpus:
    def __init__(self, path):
        self.path = path
        self.building = path + ".building"
        self.ready = path + ".ready"
        self.old = path + ".old"
        self.legacy_building = path + ".merging"

    def count(self):
        """Number of inputs in the live corpus (0 if it does not exist yet)."""
        if not os.path.isdir(self.path):
            return 0
        return len(_files(self.path))

    def recover(self):
        """Brings the corpus back to one directory, PATH, after whatever
        interrupted a replacement. Returns what it did, one phrase per step
        ([] if there was nothing to do); creates an empty PATH if none exists."""
        done = []
        if not os.path.isdir(self.path):
            # Most recent complete copy first; a half-built one beats nothing.
            for candidate in (self.ready, self.old, self.building, self.legacy_building):
                if os.path.isdir(candidate):
                    os.rename(candidate, self.path)
                    done.append(f"restored {os.path.basename(candidate)} as the live corpus")
                    break
            else:
                os.makedirs(self.path)
        for leftover in (self.building, self.legacy_building, self.ready, self.old):
            if os.path.lexists(leftover):
                _remove(leftover)
                done.append(f"removed {os.path.basename(leftover)}")
        return done

    def replace(self, build):
        """Replaces the live corpus with what build(directory) writes into a
        fresh empty directory. build returns True on success; on False, an
        empty result or an exception (KeyboardInterrupt included) the live
        corpus stays as it was. Returns True if the corpus was replaced."""
        if not os.path.isdir(self.path):
            raise FileNotFoundError(f"{self.path}: no live corpus (call recover() first)")
        _remove(self.building)
        os.mkdir(self.building)
        try:
            ok = build(self.building)
        except BaseException:
            _remove(self.building)
            raise
        if not ok or not _files(self.building):
            _remove(self.building)
            return False
        _fsync_files(self.building)
        # A Ctrl-C lands after the swap, not between its renames.
        with _signals_deferred():
            os.rename(self.building, self.ready)
            if exchange(self.ready, self.path):
                os.rename(self.ready, self.old)  # now holds the previous corpus
            else:
                os.rename(self.path, self.old)
                os.rename(self.ready, self.path)
            fsync_path(os.path.dirname(os.path.abspath(self.path)))
        _remove(self.old)
        return True


_libc = ctypes.CDLL(None, use_errno=True)
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def exchange(a, b):
    """Swaps the names a and b in one step (renameat2 RENAME_EXCHANGE): True
    if done, False if the system cannot (then nothing changed); other
    errors raise OSError."""
    fn = getattr(_libc, "renameat2", None)
    if fn is None:
        return False
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), a)


def link_files(src, dst):
    """Hard-links every input of directory src into directory dst (a copy
    where a link is refused): a merge's starting point that shares the kept
    corpus's files without touching them (libFuzzer only adds files)."""
    for path in _files(src):
        target = os.path.join(dst, os.path.basename(path))
        try:
            os.link(path, target)
        except OSError:
            shutil.copyfile(path, target)


@contextlib.contextmanager
def _signals_deferred():
    """SIGINT and SIGTERM wait (blocked) until the block ends."""
    deferred = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, deferred)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def _files(directory):
    with os.scandir(directory) as entries:
        return [e.path for e in entries if e.is_file()]


def _fsync_files(directory):
    """The inputs a merge wrote (libFuzzer does not fsync), then the directory."""
    for path in _files(directory):
        fsync_path(path)
    fsync_path(directory)
