"""Driver profiles (upstream/profiles/*.profile): which driver's tid_rdma.c
upstream mode compiles, and how its names map onto the harness's (hfi1's).

A profile is data (the format: upstream/profiles/README.md). parse_profile
reads one; Profile maps identifiers both ways. upstream/extract_kernel.py
applies it (--profile), upstream/hfi2_shaped.py inverts it.
"""

import re


class ProfileError(Exception):
    """One line naming the profile file and line."""


class Profile:
    """A driver profile (upstream/profiles/README.md): the driver's name map
    (its identifiers -> the harness's), where the driver lives, declaration
    overrides. Profile() is hfi1's: nothing mapped."""

    def __init__(self, name="hfi1", directory="drivers/infiniband/hw/hfi1"):
        self.name = name
        self.directory = directory
        self.exact = {}        # driver identifier -> harness identifier
        self.prefixes = []     # (driver prefix, harness prefix), from "map a_* b_*"
        self.files = {}        # driver header name -> harness header name
        self.mapped = []       # substrings an identifier must not keep unmapped
        self.decls = {}        # harness function name -> (line number, functions.txt line)

    def to_harness(self, ident):
        """The harness's name of one of the driver's identifiers (itself if
        the map does not cover it)."""
        if ident in self.exact:
            return self.exact[ident]
        for src, dst in self.prefixes:
            if ident.startswith(src) and len(ident) > len(src):
                return dst + ident[len(src):]
        return ident

    def to_driver(self, ident):
        """The driver's name of one of the harness's identifiers (the inverse
        of to_harness; itself if the map does not cover it)."""
        for src, dst in self.exact.items():
            if dst == ident:
                return src
        for src, dst in self.prefixes:
            if ident.startswith(dst) and len(ident) > len(dst):
                return src + ident[len(dst):]
        return ident

    def map_tokens(self, toks):
        return [self.to_harness(t) for t in toks]

    def unmapped(self, ident):
        """True if `ident` names the driver (contains a `mapped` word) but the
        map leaves it as it is."""
        return self.to_harness(ident) == ident and any(m in ident for m in self.mapped)

def parse_profile(text, display="profile"):
    """Parses a .profile file; raises ProfileError naming the line."""
    prof = Profile(name=None, directory=None)
    ident = re.compile(r"^[A-Za-z_]\w*$")
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, _, rest = line.partition(" ")
        rest = rest.strip()
        where = f"{display}:{lineno}"
        if key in ("name", "dir") and rest and " " not in rest:
            if key == "name":
                prof.name = rest
            else:
                prof.directory = rest.rstrip("/")
        elif key == "mapped" and rest:
            prof.mapped.extend(rest.split())
        elif key == "map" and len(rest.split()) == 2:
            src, dst = rest.split()
            if src.endswith("*") != dst.endswith("*"):
                raise ProfileError(f"{where}: map {src} {dst}: both or neither end in '*'")
            if not ident.match(src.rstrip("*")) or not ident.match(dst.rstrip("*")):
                raise ProfileError(f"{where}: map {src} {dst}: not identifiers")
            if src.endswith("*"):
                prof.prefixes.append((src[:-1], dst[:-1]))
            elif src in prof.exact:
                raise ProfileError(f"{where}: {src} mapped twice")
            else:
                prof.exact[src] = dst
        elif key == "file" and len(rest.split()) == 2:
            src, dst = rest.split()
            prof.files[src] = dst
        elif key == "decl" and " | " in rest:
            fname = rest.split(" | ")[0].strip()
            if fname in prof.decls:
                raise ProfileError(f"{where}: decl {fname} given twice")
            prof.decls[fname] = (lineno, rest)
        else:
            raise ProfileError(f"{where}: expected 'name N', 'dir D', 'mapped W...', "
                               f"'map FROM TO', 'file FROM TO' or 'decl LINE', not '{line}'")
    if not prof.name or not prof.directory:
        raise ProfileError(f"{display}: needs a 'name' and a 'dir' line")
    return prof
