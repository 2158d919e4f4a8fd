"""Artifacts are written whole or not at all.

write_atomic(path, data) writes a temporary file in path's directory, fsyncs
it, renames it over path and fsyncs the directory: a reader (or the next run
after a crash or a kill at any moment) sees the old file or the new one,
never a truncated one. A failure raises WriteError, whose message names the
path and the errno text; the tools print it and exit nonzero.
"""

import json
import os
import tempfile


class WriteError(Exception):
    """An artifact could not be written: str() is "cannot write PATH: <errno text>"."""


def fsync_path(path):
    """fsync of a file's data, or of a directory's entries (a rename in it)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path, data):
    """Replaces path with data (bytes or str, str written as UTF-8)."""
    if isinstance(data, str):
        data = data.encode()
    directory = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                                   suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.rename(tmp, path)
        tmp = None
        fsync_path(directory)
    except OSError as e:
        raise WriteError(f"cannot write {path}: {e.strerror or e}") from e
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def write_json(path, obj):
    """write_atomic of obj as indented JSON with a final newline."""
    write_atomic(path, json.dumps(obj, indent=2) + "\n")
