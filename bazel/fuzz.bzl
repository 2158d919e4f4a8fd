"""cc_fuzz_test: one libFuzzer target source, built two ways.

    cc_fuzz_test(
        name = "reserve_fuzz",
        srcs = ["reserve_fuzz.cc"],        # defines LLVMFuzzerTestOneInput
        deps = [...],
    )

By convention the committed inputs live next to the BUILD file:
    corpus/<name>/        seed corpus (small, committed)
    regressions/<name>/   inputs that once crashed; kept forever
    <name>.dict           optional libFuzzer dictionary
    <name>.options        optional libFuzzer flags, one per line (-max_len=...)

Targets created:
  <name>          cc_test, in EVERY config (default, tsan, asan, fuzz): runs the
                  target once on each corpus and regression file, with
                  //bazel:fuzz_replay_main as main() (in the fuzz config too:
                  libFuzzer's own main ignores what the target returns). A
                  committed file the target rejects (returns -1: for
                  flowcheck's targets, no decoder accepts it) fails the test
                  and is named: an input that stopped decoding must never
                  "pass" by running nothing.
  <name>_fuzzer   cc_binary for real fuzzing; only under --config=fuzz (other
                  configs skip it in //...). tools/campaign.sh drives it.
  <name>_lib      the target as a library (alwayslink), for other binaries that
                  want the same LLVMFuzzerTestOneInput (e.g. a reproducer).
  <name>_inputs   filegroup of every committed corpus and regression file.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")

_LIBFUZZER = "//bazel:libfuzzer"

def _fuzzer_linkopts():
    return select({
        _LIBFUZZER: ["-fsanitize=fuzzer"],
        "//conditions:default": [],
    })

def cc_fuzz_test(
        name,
        srcs,
        deps = [],
        copts = [],
        size = "small",
        tags = [],
        visibility = None,
        **kwargs):
    lib = name + "_lib"
    inputs = native.glob(
        ["corpus/%s/**" % name, "regressions/%s/**" % name],
        exclude = ["**/README*"],
    )
    extras = native.glob([name + ".dict", name + ".options"])

    cc_library(
        name = lib,
        srcs = srcs,
        deps = deps,
        copts = copts,
        testonly = True,
        alwayslink = True,
        visibility = visibility,
        **kwargs
    )

    native.filegroup(
        name = name + "_inputs",
        srcs = inputs,
        testonly = True,
        visibility = visibility,
    )

    cc_test(
        name = name,
        deps = [":" + lib, "//bazel:fuzz_replay_main"],
        data = [":" + name + "_inputs"] + extras,
        # Files, not their directories: what is replayed is exactly what is
        # committed.
        args = ["$(rootpaths :%s_inputs)" % name] if inputs else [],
        size = size,
        tags = tags + ["fuzz_regression"],
        visibility = visibility,
    )

    cc_binary(
        name = name + "_fuzzer",
        deps = [":" + lib],
        linkopts = _fuzzer_linkopts(),
        data = extras,
        testonly = True,
        tags = tags + ["fuzzer"],
        target_compatible_with = select({
            _LIBFUZZER: [],
            "//conditions:default": ["@platforms//:incompatible"],
        }),
        visibility = visibility,
    )
