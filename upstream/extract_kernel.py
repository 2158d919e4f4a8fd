#!/usr/bin/env python3
"""Writes the kernel's own tid_rdma.c functions into one C++ translation unit.

  extract_kernel.py --source=tid_rdma.c --functions=upstream/functions.txt \\
      --source_info=SOURCE --out=kernel_tid_rdma.cc [--profile=upstream/profiles/X.profile]

Upstream mode's build step (the genrule //upstream:kernel_tid_rdma). Each
function named in --functions is copied verbatim from --source: kernel style
puts a definition's return type and name in column 0 and its braces alone in
column 0 ("{" ... "}"), which is all this relies on. Every function is renamed
to upstream_<name> with a #define around its text (the kernel makes most of
them static; core's names are then defined by trampolines, see
upstream/trampolines.h), and a #line directive before it makes compiler
diagnostics, debug info and sanitizer stacks point at tid_rdma.c's own lines.

Fails (exit 1, one line on stderr naming the function and the identifier)
when a function is missing, defined twice, not closed in column 0, or its
declaration differs from the one --functions expects; also when an audited
call redirection (calls=, only_in=) no longer matches where the kernel calls
the function. The output is written atomically (temporary file, fsync,
rename).

--profile names the driver whose text it is (upstream/profiles/*.profile): its
name map turns the driver's identifiers into the harness's (hfi2_ctxtdata ->
hfi1_ctxtdata) by #defines around the verbatim text, its decl lines replace
the declarations of functions.txt where that driver's differ, and an
identifier the map should cover but does not fails the build naming it.
Without --profile the text is hfi1's (nothing mapped).
"""

import argparse
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from driver_profile import Profile, ProfileError, parse_profile  # noqa: E402,F401

_TOKEN = re.compile(r"[A-Za-z_]\w*|\d\w*|->|&&|\|\||<<|>>|[^\s]")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_PREFIX = "upstream_"


class ExtractError(Exception):
    """One line naming the function and the offending identifier."""


def tokens(text):
    return _TOKEN.findall(_COMMENT.sub(" ", text))


def _drop_static(toks):
    return toks[1:] if toks[:1] == ["static"] else toks


class Spec:
    """One line of functions.txt."""

    def __init__(self, name, declaration, options, lineno):
        self.name = name
        self.declaration = declaration
        self.calls = None
        self.only_in = None
        self.allow = []
        self.lineno = lineno
        for opt in filter(None, (o.strip() for o in options.split(","))):
            key, _, value = opt.partition("=")
            if not value or key not in ("calls", "only_in", "allow"):
                raise ExtractError(f"functions.txt:{lineno}: {name}: bad option '{opt}'")
            if key == "calls":
                self.calls = value
            elif key == "only_in":
                self.only_in = value.split("+")
            else:
                self.allow.append(value)
        if self.only_in and not self.calls:
            raise ExtractError(f"functions.txt:{lineno}: {name}: only_in= needs calls=")


def parse_functions(text):
    specs = []
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(" | ")]
        if len(fields) == 2 and line.endswith("|"):
            fields = [fields[0], fields[1].rstrip("|").strip(), ""]
        if len(fields) != 3 or not fields[0] or not fields[1]:
            raise ExtractError(f"functions.txt:{lineno}: expected 'name | declaration | options'")
        name, declaration, options = fields
        if name not in tokens(declaration):
            raise ExtractError(f"functions.txt:{lineno}: {name}: its declaration does not name it")
        specs.append(Spec(name, declaration, options, lineno))
    names = [s.name for s in specs]
    for n in names:
        if names.count(n) > 1:
            raise ExtractError(f"functions.txt: {n}: listed twice")
    return specs


class Found:
    """A definition in the kernel file: lines [start, end] (0-based, inclusive)."""

    def __init__(self, spec, lines, start, brace, end, profile=None):
        profile = profile or Profile()
        self.spec = spec
        self.start = start
        self.brace = brace
        self.end = end
        self.declaration = "\n".join(lines[start:brace])
        self.text = "\n".join(lines[start:end + 1])
        # Tokens in the harness's names (the profile's map applied).
        self.declaration_tokens = profile.map_tokens(tokens(self.declaration))
        self.body_tokens = profile.map_tokens(tokens("\n".join(lines[brace:end + 1])))
        self.static = self.declaration_tokens[:1] == ["static"]


def _is_column0_declaration(line):
    return bool(line) and line[0] not in " \t#/*{}"


def find_definitions(name, lines, display):
    """Every column-0 definition of `name`: (start, brace, end) line indexes."""
    named = re.compile(r"(?<![\w])" + re.escape(name) + r"\s*\(")
    found = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not (_is_column0_declaration(line) and named.search(line)):
            i += 1
            continue
        # The declaration runs until a "{" alone in column 0 (a definition)
        # or a ";" (a prototype). Kernel declarations span a few lines.
        brace = None
        for j in range(i, min(i + 12, len(lines))):
            if lines[j].rstrip() == "{":
                brace = j
                break
            if lines[j].rstrip().endswith(";"):
                break
        if brace is None:
            i += 1
            continue
        end = next((k for k in range(brace + 1, len(lines)) if lines[k].rstrip() == "}"), None)
        if end is None:
            raise ExtractError(f"{display}: {name}: no closing '}}' in column 0 after line {brace + 1}")
        found.append((i, brace, end))
        i = end + 1
    return found


def check_declaration(spec, found, display):
    want = _drop_static(tokens(spec.declaration))
    have = _drop_static(found.declaration_tokens)
    if want == have:
        return
    for k in range(max(len(want), len(have))):
        w = want[k] if k < len(want) else "<end>"
        h = have[k] if k < len(have) else "<end>"
        if w != h:
            break
    now = " ".join(found.declaration.split())
    raise ExtractError(
        f"{display}: {spec.name}: declaration changed at '{h}' (expected '{w}'); the kernel now "
        f"has: {now}")


def _calls(toks, name):
    return any(toks[k] == name and toks[k + 1] == "(" for k in range(len(toks) - 1))


def check_redirections(found_in_order, display):
    """A redirected function may only be called after its definition (the
    redirect is a #define that starts there), and only from only_in."""
    for k, caller in enumerate(found_in_order):
        for callee in found_in_order:
            spec = callee.spec
            if not spec.calls or callee is caller or not _calls(caller.body_tokens, spec.name):
                continue
            if spec.only_in and caller.spec.name not in spec.only_in:
                raise ExtractError(
                    f"{display}: {spec.name}: now also called from {caller.spec.name}; its audited "
                    f"wrapper {spec.calls} assumes calls only from {' or '.join(spec.only_in)}")
            if found_in_order.index(callee) > k:
                raise ExtractError(
                    f"{display}: {spec.name}: called from {caller.spec.name} before its definition; "
                    f"its calls could not go to {spec.calls}")


_PRELUDE = "upstream/shim/prelude.h"
_TRAILER = "upstream/trampolines.h"


def apply_decls(profile, specs):
    """functions.txt's specs with the profile's decl lines in their place."""
    decls = {}
    for name, (lineno, line) in profile.decls.items():
        try:
            decls[name] = parse_functions("\n" * (lineno - 1) + line)[0]
        except ExtractError as e:  # "functions.txt:N: ..." -> the profile's line
            raise ExtractError(f"{profile.name}.profile:{lineno}: decl "
                               f"{str(e).split(': ', 1)[1]}")
    return [decls.get(s.name, s) for s in specs]


def check_mapped(found, profile, display):
    """Every identifier of the extracted text that names the driver (a
    profile `mapped` word) is covered by the profile's map."""
    for f in found:
        for t in tokens(f.text):
            if profile.unmapped(t):
                raise ExtractError(
                    f"{display}: {profile.to_driver(f.spec.name)}: '{t}' is not in profile "
                    f"{profile.name}'s name map (add a map line to its .profile)")


def mapped_identifiers(found, profile):
    """The driver's identifiers the extracted text uses that the map renames,
    sorted: one #define each."""
    return sorted({t for f in found for t in tokens(f.text) if profile.to_harness(t) != t})


# Identifiers followed by "(" that are C, not kernel APIs.
_NOT_CALLS = {"if", "for", "while", "switch", "return", "sizeof", "typeof", "__typeof__",
              "alignof", "_Alignof", "defined"}


def parse_apis(text, display="apis.txt"):
    """The kernel APIs the shims provide: {name: provider}. One per line,
    `name | provider`: `prelude` (the unit's first header has it, from core or
    a shim there) or a header under upstream/shim/api/ that the unit includes
    only when the text calls `name` (an API whose spelling changed between
    kernel versions has one header per spelling)."""
    apis = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(" | ")]
        if len(fields) != 2 or not all(fields) or not re.match(r"[A-Za-z_]\w*$", fields[0]):
            raise ExtractError(f"{display}:{lineno}: expected 'name | prelude' or 'name | header'")
        if fields[0] in apis:
            raise ExtractError(f"{display}:{lineno}: {fields[0]}: listed twice")
        apis[fields[0]] = fields[1]
    return apis


def called_apis(f, lines, profile):
    """[(name, line index)] of what the body of `f` calls, in the harness's
    names, in order of first call."""
    body = "\n".join(lines[f.brace:f.end + 1])
    body = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), body)
    seen, out = set(), []
    for k, text in enumerate(body.split("\n")):
        toks = profile.map_tokens(_TOKEN.findall(text))
        for i in range(len(toks) - 1):
            t = toks[i]
            if toks[i + 1] == "(" and re.match(r"[A-Za-z_]\w*$", t) and t not in seen:
                seen.add(t)
                out.append((t, f.brace + k))
    return out


def check_apis(found, lines, apis, profile, display, apis_display):
    """The shim headers the unit must include (sorted). Raises ExtractError,
    one line, for the first call of an API the table lacks."""
    own = {f.spec.name for f in found} | {f"{_PREFIX}{f.spec.name}" for f in found}
    headers = set()
    for f in found:
        for name, line in called_apis(f, lines, profile):
            if name in _NOT_CALLS or name in own or name.startswith("__builtin_"):
                continue
            provider = apis.get(name)
            if provider is None:
                raise ExtractError(
                    f"{display}:{line + 1}: {f.spec.name} calls {name}, which no shim provides: "
                    f"add it to {apis_display} (its header says how)")
            if provider != "prelude":
                headers.add(provider)
    return sorted(headers)


def extract(source_text, specs, display="tid_rdma.c", source_info="", out_name="kernel_tid_rdma.cc",
            profile=None, prelude=_PRELUDE, trailer=_TRAILER, apis=None,
            apis_display="apis.txt"):
    """Returns the translation unit's text, or raises ExtractError. The unit
    includes `prelude` first and `trailer` last (C or C++: the emitted text
    adds nothing language-specific). With `apis` (parse_apis), every call in
    the text must be to an API it lists, and the unit includes the shim
    headers of the APIs the text calls, after the prelude."""
    profile = profile or Profile()
    specs = apply_decls(profile, specs)
    lines = source_text.splitlines()
    found = []
    for spec in specs:
        kname = profile.to_driver(spec.name)
        defs = find_definitions(kname, lines, display)
        if not defs:
            raise ExtractError(
                f"{display}: {kname}: not found (no definition of '{kname}' with its braces "
                f"in column 0)")
        if len(defs) > 1:
            where = ", ".join(str(d[0] + 1) for d in defs)
            raise ExtractError(f"{display}: {kname}: defined {len(defs)} times (lines {where})")
        f = Found(spec, lines, *defs[0], profile=profile)
        check_declaration(spec, f, display)
        found.append(f)
    found.sort(key=lambda f: f.start)
    check_redirections(found, display)
    check_mapped(found, profile, display)
    renamed = mapped_identifiers(found, profile)
    shims = check_apis(found, lines, apis, profile, display, apis_display) if apis is not None else []

    out = []

    def emit(text=""):
        out.extend(text.split("\n"))

    def resync():
        # Back to this file's own line numbers after a #line into tid_rdma.c.
        emit(f'#line {len(out) + 2} "{out_name}"')

    emit("// GENERATED by upstream/extract_kernel.py from upstream/functions.txt: do not edit.")
    emit(f"// The functions below are {display}'s own text, verbatim; only #define")
    emit("// renames, #line markers and per-function diagnostic pragmas are added.")
    for info in source_info.strip().splitlines():
        emit(f"// Kernel source: {info}")
    emit(f'#include "{prelude}"')
    if shims:
        emit("// The shims of the kernel APIs this text calls whose spelling depends on the")
        emit("// kernel version (upstream/shim/apis.txt).")
        for h in shims:
            emit(f'#include "{h}"')
    emit()
    if renamed:
        emit(f"// Profile {profile.name} (upstream/profiles/{profile.name}.profile): the driver's")
        emit("// names, mapped to the harness's.")
        for t in renamed:
            emit(f"#define {t} {profile.to_harness(t)}")
        emit()
    emit("// Every function is renamed (most are static in the kernel); core's names are")
    emit("// defined by the trampolines at the end.")
    for f in found:
        emit(f"#define {f.spec.name} {_PREFIX}{f.spec.name}")
    for f in found:
        linkage = "static" if f.static else "extern"
        emit()
        emit(f"// {display}:{f.start + 1} {f.spec.name} ({linkage} in the kernel)")
        for w in f.spec.allow:
            emit("#pragma clang diagnostic push")
            emit(f'#pragma clang diagnostic ignored "{w}"')
        emit(f'#line {f.start + 1} "{display}"')
        emit(f.text)
        resync()
        for _ in f.spec.allow:
            emit("#pragma clang diagnostic pop")
        if f.spec.calls:
            emit(f"// From here on the kernel's calls of {f.spec.name} go to {f.spec.calls}.")
            emit(f"#undef {f.spec.name}")
            emit(f"#define {f.spec.name} {f.spec.calls}")
    emit()
    for f in found:
        emit(f"#undef {f.spec.name}")
    for t in renamed:
        emit(f"#undef {t}")
    emit(f'#include "{trailer}"')
    return "\n".join(out) + "\n"


def write_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".extract_kernel.")
        try:
            with os.fdopen(fd, "w") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as e:
        raise ExtractError(f"cannot write {path}: {os.strerror(e.errno) if e.errno else e}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", required=True, help="the kernel's tid_rdma.c")
    ap.add_argument("--functions", required=True, help="upstream/functions.txt")
    ap.add_argument("--source_info", help="a file describing the kernel tree (SOURCE)")
    ap.add_argument("--display",
                    help="the file name used in #line markers and messages (default: the "
                         "profile's dir/tid_rdma.c)")
    ap.add_argument("--profile", help="the driver's upstream/profiles/*.profile (default: hfi1's)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--prelude", default=_PRELUDE,
                    help="the header the unit includes first (the shims)")
    ap.add_argument("--apis", help="the kernel APIs the shims provide (upstream/shim/apis.txt): "
                                   "a call of any other fails the extraction, naming it")
    ap.add_argument("--trailer", default=_TRAILER,
                    help="the header the unit includes last (the trampolines)")
    args = ap.parse_args(argv)
    try:
        try:
            with open(args.source, encoding="utf-8", errors="surrogateescape") as f:
                source = f.read()
            with open(args.functions, encoding="utf-8") as f:
                specs = parse_functions(f.read())
            profile = Profile()
            if args.profile:
                with open(args.profile, encoding="utf-8") as f:
                    profile = parse_profile(f.read(), display=os.path.basename(args.profile))
            display = args.display or f"{profile.directory}/tid_rdma.c"
            apis = None
            if args.apis:
                with open(args.apis, encoding="utf-8") as f:
                    apis = parse_apis(f.read(), display=args.apis)
            info = ""
            if args.source_info:
                with open(args.source_info, encoding="utf-8") as f:
                    info = f.read()
        except OSError as e:
            raise ExtractError(f"cannot read {e.filename}: {e.strerror}")
        text = extract(source, specs, display=display, source_info=info,
                       out_name=os.path.basename(args.out), profile=profile,
                       prelude=args.prelude, trailer=args.trailer, apis=apis,
                       apis_display=args.apis or "")
        write_atomically(args.out, text)
    except (ExtractError, ProfileError) as e:
        print(f"upstream: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
