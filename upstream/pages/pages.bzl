"""kernel_pages_unit: the page helpers of a tid_rdma.c, extracted and compiled as GNU C.

    kernel_pages_unit(
        name = "kernel_pages",              # a cc_library
        source = "@linux_hfi1//:tid_rdma.c",
        prefix = "kernel_",                 # entry points kernel_find_phys_blocks_4k, ...
    )

The genrule `<name>_c` runs upstream/extract_kernel.py with
upstream/pages/functions.txt, upstream/pages/shim.h first and
upstream/pages/trampolines.h last, writing `<name>/kernel_pages.c`; the
library compiles it as C with our warnings as errors. Only --config=upstream
with the hfi1 profile builds it (the kernel tree is needed; the page helpers
are hfi1's text: under another driver profile, e.g. --config=upstream_hfi2,
@linux_hfi1//:tid_rdma.c is not that driver's file, so they are skipped).
"""

load("@linux_hfi1//:profiles.bzl", "PROFILES")
load("@rules_cc//cc:defs.bzl", "cc_library")

UPSTREAM_ONLY = select(dict(
    [("//upstream:upstream_" + p, ["@platforms//:incompatible"]) for p in PROFILES if p != "hfi1"] +
    [
        ("//core:upstream", []),
        ("//conditions:default", ["@platforms//:incompatible"]),
    ],
))

def kernel_pages_unit(name, source, prefix, testonly = False):
    out = name + "/kernel_pages.c"
    native.genrule(
        name = name + "_c",
        srcs = [
            "//upstream:extract_kernel.py",
            "functions.txt",
            "apis.txt",
            source,
            "@linux_hfi1//:SOURCE",
        ],
        outs = [out],
        cmd = "python3 $(location //upstream:extract_kernel.py) --source=$(location %s) " % source +
              "--functions=$(location functions.txt) --apis=$(location apis.txt) " +
              "--source_info=$(location @linux_hfi1//:SOURCE) " +
              "--prelude=upstream/pages/shim.h --trailer=upstream/pages/trampolines.h --out=$@",
        target_compatible_with = UPSTREAM_ONLY,
        testonly = testonly,
    )
    cc_library(
        name = name,
        srcs = [
            out,
            "shim.h",
            "trampolines.h",
        ],
        hdrs = [
            "kernel_pages.h",
            "shim_types.h",
        ],
        # GNU C: the kernel's text does arithmetic on void *. Our warnings
        # as errors (the generated file is outside .bazelrc's path regexes).
        copts = [
            "-std=gnu11",
            "-Wall",
            "-Wextra",
            "-Wno-unused-parameter",
            "-Werror",
            "-DKERNEL_PAGES_PREFIX=" + prefix,
        ],
        target_compatible_with = UPSTREAM_ONLY,
        testonly = testonly,
    )
