"""The one table of failure markers: which layer spoke, and what it said.

flowcheck's own checks print "flowcheck: FAIL [oracle]", "[invariant F1]",
"[watchdog]" (fuzz executor, stress driver), "[step-bound]" (the controlled
scheduler's watchdog); lockcheck titles its report
"======== lockcheck: <rule> on <lock> ========"; the sanitizers, the compiler's
thread-safety analysis, GoogleTest and libFuzzer (deadly signal, timeout,
out-of-memory) have their own lines. find(output)
returns the first entry of TABLE, in TABLE's order, that matches anywhere in
the output. The order is a priority, not a position: a TSan report whose
stack shows lockcheck's frames is TSan's.
"""

import collections
import re

Marker = collections.namedtuple("Marker", "layer signature line")

# (layer, pattern, signature format: "{}" is the pattern's first group).
TABLE = [
    ("compile", re.compile(r"error: calling function '(\w+)' requires holding"),
     "compile requires lock ({})"),
    ("compile", re.compile(r"error: .*\[-Werror,(-Wthread-safety[\w-]*)\]"), "compile {}"),
    ("tsan", re.compile(r"WARNING: ThreadSanitizer: ([\w -]+?)(?: \(|$)", re.M), "tsan {}"),
    ("tsan", re.compile(r"WARNING: ThreadSanitizer:"), "tsan"),
    ("lockcheck", re.compile(r"=+ lockcheck: ([\w-]+) on"), "lockcheck {}"),
    ("lockcheck", re.compile(r"^lockcheck: ", re.M), "lockcheck"),
    ("oracle", re.compile(r"flowcheck: FAIL \[oracle\]"), "oracle"),
    ("invariant", re.compile(r"flowcheck: FAIL \[invariant ([^\]]+)\]"), "invariant {}"),
    ("watchdog", re.compile(r"flowcheck: FAIL \[watchdog\]"), "watchdog"),
    # The controlled scheduler's watchdog: an execution that does not end
    # within --max_steps decisions (a livelock, or a thread that starves).
    ("watchdog", re.compile(r"flowcheck: FAIL \[step-bound\]"), "watchdog step-bound"),
    ("asan", re.compile(r"ERROR: AddressSanitizer: ([\w-]+)"), "asan {}"),
    ("asan", re.compile(r"runtime error: ([\w ]+)"), "ubsan {}"),
    ("asan", re.compile(r"ERROR: LeakSanitizer: (detected memory leaks)"), "lsan {}"),
    ("unit", re.compile(r"^\[  FAILED  \] (\S+)", re.M), "unit {}"),
    ("unit", re.compile(r"^FAIL: ", re.M), "unit"),
    # A flowcheck marker with a tag no row above knows: still a failure.
    ("flowcheck", re.compile(r"flowcheck: FAIL \[([^\]]+)\]"), "flowcheck {}"),
    # libFuzzer's own: last, since its "deadly signal" follows every abort.
    ("libfuzzer", re.compile(r"ERROR: libFuzzer: ([\w -]+?)(?: after| \(|$)", re.M),
     "libfuzzer {}"),
]


def find(output):
    """The Marker (layer, signature, the line it is on) of output, or None."""
    for layer, pattern, fmt in TABLE:
        m = pattern.search(output)
        if m:
            start = output.rfind("\n", 0, m.start()) + 1
            end = output.find("\n", m.start())
            line = output[start:end if end >= 0 else len(output)].strip()
            return Marker(layer, fmt.format(*(g.strip() for g in m.groups())), line)
    return None
