"""A crash's signature: one normalised line saying what failed and where.

of_output(output) reads what a fuzz target printed while replaying one input
(its own libFuzzer binary, the build that found it; flowcheck_tools.crashes
runs it) and returns, for example:

  invariant W5 upstream divergence [R-1]
  invariant F1 @ fill
  oracle @ setup_hw_flow
  asan heap-use-after-free @ kern_reserve_flow
  ubsan index out of bounds for type @ hfi1_kern_setup_hw_flow
  tsan data race @ hfi1_kern_clear_hw_flow
  lockcheck lock-order-inversion @ (anonymous namespace)::buggy_wakeup
  libfuzzer deadly signal @ some_function
  libfuzzer timeout

The first part is the failure marker's kind (flowcheck_tools.markers decides
which marker wins: the invariant id, the lockcheck rule, the sanitizer's
report kind, libFuzzer's own), plus the kernel hazards ([R-n]) when an
invariant failed only as an upstream divergence (FLOWCHECK_FUZZ_STRICT=1).
After " @ " comes where it fired: the op kind for flowcheck's own checks
(the executor's "flowcheck: FAIL [...] TARGET op #N OP(args)" line), except
for an upstream divergence, whose hazard id already names the kernel code at
fault (the [R-1] mis-charged dequeue is seen after flush_wait, setup_hw_flow
or rarr_grant alike: one kernel hazard, one signature); the top
project frame for a sanitizer or libFuzzer report (the first stack frame in
the repository's own code; a lockcheck report's own stack of the thread that
broke the rule), nothing for a timeout or an out-of-memory without a stack
(where a timer or an RSS check interrupts is not where the bug is).
Normalised: no addresses, no counts, sizes, line numbers, thread or op
indices, no argument lists or template arguments, so two inputs failing the
same way have the same signature. None if the output shows no failure.

The campaign (deduplicating crashes) and tools/reproduce.sh --signature both
call of_output on the same binary's output: one implementation.
"""

import os
import re

from flowcheck_tools import ROOT, markers

_FAIL_LINE = re.compile(
    r"flowcheck: FAIL \[[^\]]*\] \S+ op #\d+(?: \(call \d+\))? (?P<op>.*)$", re.M)
# "[R-1]", or "[R-7]/[R-3]" where the checker cannot tell which hazard it was.
_DIVERGENCE = re.compile(r"^\s*(\S+) upstream divergence: (\[R-\d+\](?:/\[R-\d+\])*)", re.M)
_VIOLATION = re.compile(r"^\s*(\S+) (violation|upstream divergence): ", re.M)
# "#3 0x55d0 in func(args) /proc/self/cwd/core/x.cc:12:3" (ASan, UBSan,
# libFuzzer), "#0 func(args) /abs/core/x.cc:12:3 (bin+0x12)" (TSan),
# "#0 0x55 func()" (lockcheck), "#1 0x55 in func (/lib/x.so+0x3c04f) (BuildId: ab)".
_FRAME = re.compile(
    r"^\s*#\d+ (?:0x[0-9a-fA-F]+ )?(?:in )?(?P<func>.+?)"
    r"(?: (?P<path>/?[\w./+-]+\.\w+):\d+(?::\d+)?)?"
    r"(?: \((?P<module>[^()]*\+0x[0-9a-fA-F]+)\))?(?: \(BuildId: \w+\))?(?: \S+\.c)?$", re.M)
# The repository's own code: a path under one of its top-level directories
# (not third_party/), as bazel prints it (/proc/self/cwd/ is the execution
# root) or absolute.
_PROJECT_DIRS = sorted(d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d))
                       and not d.startswith((".", "bazel-")) and d not in ("third_party", "out"))
_PROJECT_PATH = re.compile(r"^(?:/proc/self/cwd/|%s/)?(?:%s)/" % (
    re.escape(ROOT), "|".join(re.escape(d) for d in _PROJECT_DIRS)))
# A runtime's function, or a frame lockcheck knows only by its object and
# offset ("(libc.so.6+0x891f5)": a stripped library's), is never "where".
_RUNTIME_FUNC = re.compile(
    r"^(?:__sanitizer|__asan|__tsan|__ubsan|__lsan|__interceptor|__libc|__GI_|"
    r"fuzzer::|std::|__cxx|_start|abort$|raise$|malloc$|calloc$|realloc$|free$|"
    r"operator new|operator delete|__pthread|pthread_|\([^()]*\+0x[0-9a-fA-F]+\)$)")


def _strip_args(func):
    """"ns::f<int>(a, b) const" -> "ns::f"; "(anonymous namespace)::g()" keeps
    its namespace; lambdas' "$_3" -> "$_"."""
    func = re.sub(r"\s+const$", "", func.strip())
    if func.endswith(")"):  # drop the last balanced (...) group: the arguments
        depth = 0
        for i in range(len(func) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(func[i], 0)
            if depth == 0:
                func = func[:i] if i > 0 else func
                break
    out, depth = [], 0
    for ch in func:  # template arguments
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return re.sub(r"\$_\d+", "$_", "".join(out)).strip()


def _project_frame(text, relaxed=False):
    """The first frame of `text` in the repository's own code. Frames with a
    source path count if the path is the repository's; frames without one
    (lockcheck's own stacks, unsymbolised libraries) only when `relaxed`
    and not a runtime's function."""
    for m in _FRAME.finditer(text):
        func, path = m.group("func"), m.group("path")
        if path is not None:
            if _PROJECT_PATH.match(path):
                return _strip_args(func)
        elif relaxed and m.group("module") is None and not _RUNTIME_FUNC.match(func):
            return _strip_args(func)
    return None


def _normalise(kind):
    """A sanitizer's or libFuzzer's words without numbers and quoted types."""
    kind = re.sub(r"'[^']*'", "", kind)
    kind = re.sub(r"\b0x[0-9a-fA-F]+\b|\b\d+\b", "", kind)
    return re.sub(r"\s+", " ", kind).strip(" :")


def of_output(output):
    """The signature of one replay's output, or None if nothing failed."""
    m = markers.find(output)
    if m is None:
        return None
    after = output[output.find(m.line):] if m.line else output
    where = None
    kind = m.signature
    if m.layer in ("oracle", "invariant", "flowcheck"):
        fail = _FAIL_LINE.search(output)
        if fail:
            op = fail.group("op").strip()
            name = re.match(r"[A-Za-z_]\w*", op)
            where = name.group(0) if name else _normalise(op.strip("()"))
        if m.layer == "invariant":
            first = _VIOLATION.search(after)
            if first and first.group(2) == "upstream divergence":
                tags = sorted({t for i, t in _DIVERGENCE.findall(after)
                               if i == first.group(1)})
                kind += " upstream divergence " + " ".join(tags)
                where = None  # the hazard is the kernel's, whichever op ran it
    elif m.layer == "lockcheck":
        stack = re.search(r"^stack of thread .*$", after, re.M)
        where = _project_frame(after[stack.start():] if stack else after, relaxed=True)
    elif m.layer == "libfuzzer" and kind != "libfuzzer deadly signal":
        kind = _normalise(kind)
        if "malloc" in m.line:  # -malloc_limit_mb: the allocation's stack
            where = _project_frame(after)
    else:  # asan, ubsan, lsan, tsan, libFuzzer's deadly signal, compile, unit
        kind = _normalise(kind)
        where = _project_frame(after)
    return kind + (f" @ {where}" if where else "")
