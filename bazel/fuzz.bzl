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
                  target once on each corpus and regression file. Its main() is
                  libFuzzer's under --config=fuzz (given files, libFuzzer only
                  replays them) and //bazel:fuzz_replay_main otherwise.
  <name>_fuzzer   cc_binary for real fuzzing; only under --config=fuzz (other
                  configs skip it in //...). tools/campaign.sh drives it.
  <name>_lib      the target as a library (alwayslink), for other binaries that
                  want the same LLVMFuzzerTestOneInput (e.g. a reproducer).
  <name>_inputs   filegroup of every committed corpus and regression file.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")

_LIBFUZZER = "//bazel:libfuzzer"

def _engine_deps():
    return select({
        _LIBFUZZER: [],
        "//conditions:default": ["//bazel:fuzz_replay_main"],
    })

def _engine_linkopts():
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
        deps = [":" + lib] + _engine_deps(),
        linkopts = _engine_linkopts(),
        data = [":" + name + "_inputs"] + extras,
        # Files only, never a directory: given a directory libFuzzer would
        # fuzz until the timeout and write into it. -runs=0 keeps libFuzzer
        # from fuzzing when there are no files; the replay driver ignores it.
        args = ["-runs=0"] + (["$(rootpaths :%s_inputs)" % name] if inputs else []),
        size = size,
        tags = tags + ["fuzz_regression"],
        visibility = visibility,
    )

    cc_binary(
        name = name + "_fuzzer",
        deps = [":" + lib] + _engine_deps(),
        linkopts = _engine_linkopts(),
        data = extras,
        testonly = True,
        tags = tags + ["fuzzer"],
        target_compatible_with = select({
            _LIBFUZZER: [],
            "//conditions:default": ["@platforms//:incompatible"],
        }),
        visibility = visibility,
    )
