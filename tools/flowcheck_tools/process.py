"""Child processes in their own process group, and how to stop such a group.

A fuzzer in -fork mode runs its jobs through system(): they share its process
group, and the parent ignores SIGINT while system() waits (it may keep going
after the first Ctrl-C, e.g. when it lands in libFuzzer's start-up merge). So
the tools start every long child with start_new_session=True (a terminal's
Ctrl-C reaches the tool only) and stop it with stop_group(): the signal goes
to the whole group, optionally again every repeat_s, and whatever is still in
the group after grace_s gets SIGKILL.
"""

import ctypes
import os
import signal
import subprocess
import time

_PR_SET_PDEATHSIG = 1


def _signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
        return True
    except ProcessLookupError:
        return False


def _group_alive(pgid):
    """True while a live (not zombie) process of group pgid exists. The
    leader may be gone: its group id stays reserved while the group has
    members. Orphaned members that nobody reaps stay zombies, which count
    for kill(2) but can do nothing, so /proc decides."""
    if not _signal_group(pgid, 0):
        return False
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                # "pid (comm) state ppid pgrp ...": comm may hold spaces and ')'.
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited meanwhile
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def _wait_group(proc, until):
    """Waits until proc has exited and its group is empty (True), or until
    the monotonic time `until` (False)."""
    while proc.poll() is None or _group_alive(proc.pid):
        if time.monotonic() >= until:
            return False
        time.sleep(0.02)
    return True


def stop_group(proc, grace_s, sig=signal.SIGINT, repeat_s=None):
    """Stops proc (a Popen started with start_new_session=True) and its group.

    Sends sig to the group, again every repeat_s seconds if given, until the
    whole group has exited; SIGKILL to what is left after grace_s, or at once
    on a KeyboardInterrupt (a second Ctrl-C) meanwhile. Returns once no
    process of the group runs, with proc's exit code (negative: a signal).
    """
    deadline = time.monotonic() + grace_s
    try:
        while True:
            _signal_group(proc.pid, sig)
            until = min(deadline, time.monotonic() + repeat_s) if repeat_s else deadline
            if _wait_group(proc, until):
                return proc.returncode
            if time.monotonic() >= deadline:
                break
    except KeyboardInterrupt:
        pass
    _signal_group(proc.pid, signal.SIGKILL)
    proc.wait()
    _wait_group(proc, time.monotonic() + 5)  # SIGKILL is asynchronous
    return proc.returncode


def die_with_parent():
    """A Popen preexec_fn: the child gets SIGKILL when the process that
    started it dies, even by SIGKILL (Linux prctl PR_SET_PDEATHSIG). The
    campaign starts libFuzzer merges with it, so that a killed campaign
    leaves no merge writing into a directory the next run reuses."""
    parent = os.getppid()
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(137)


def run_in_group(cmd, cwd, timeout, env=None):
    """Runs cmd in its own process group, output captured (stderr into
    stdout). Returns (exit code, output, seconds, timed_out); on timeout or
    KeyboardInterrupt the group is killed (the interrupt is re-raised)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace",
                            start_new_session=True)
    timed_out = False
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _signal_group(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    except KeyboardInterrupt:
        _signal_group(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return proc.returncode, out, time.monotonic() - start, timed_out
