"""cc_compile_fail_test: proves that a snippet does NOT compile, for the right reason.

    cc_compile_fail_test(
        name = "missing_lock_does_not_compile_test",
        src = "testdata/missing_lock.cc",
        deps = ["//lockcheck"],
        expected_errors = ["requires holding mutex 'rcd->exp_lock'"],
        control = "testdata/missing_lock_fixed.cc",
    )

At build time the snippet is compiled (-fsyntax-only) with the exact compiler,
flags, include paths and defines a cc_library with the same deps would use, in
the active config; the diagnostics and the exit code are captured, the action
itself always succeeds. The test then passes only if

  * the snippet failed to compile, and
  * every regex of `expected_errors` matches the diagnostics (so a typo or a
    missing include cannot pass for the error we are after), and
  * the `control` snippet (the same code done right) compiled cleanly, which
    shows the harness itself can compile this kind of code.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

def _compile(ctx, src, cc_toolchain, feature_configuration, cctx, out):
    variables = cc_common.create_compile_variables(
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        # Plain-text diagnostics: the toolchain's -fcolor-diagnostics would
        # put escape codes between "error: " and the message.
        user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts + ["-fsyntax-only", "-fno-color-diagnostics"],
        source_file = src.path,
        include_directories = cctx.includes,
        quote_include_directories = cctx.quote_includes,
        system_include_directories = cctx.system_includes,
        preprocessor_defines = cctx.defines,
    )
    argv = cc_common.get_memory_inefficient_command_line(
        feature_configuration = feature_configuration,
        action_name = "c++-compile",
        variables = variables,
    )
    compiler = cc_common.get_tool_for_action(
        feature_configuration = feature_configuration,
        action_name = "c++-compile",
    )
    env = cc_common.get_environment_variables(
        feature_configuration = feature_configuration,
        action_name = "c++-compile",
        variables = variables,
    )
    ctx.actions.run_shell(
        inputs = depset([src], transitive = [cctx.headers, cc_toolchain.all_files]),
        outputs = [out],
        arguments = [out.path, compiler] + argv,
        env = env,
        # Record diagnostics and the exit status; never fail the action.
        command = 'out="$1"; shift; "$@" > "$out" 2>&1; echo "flowcheck-compile-exit=$?" >> "$out"',
        mnemonic = "CompileProbe",
        progress_message = "Compile probe %s" % src.short_path,
    )

def _impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    cctx = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps]).compilation_context
    bad_log = ctx.actions.declare_file(ctx.label.name + ".bad.log")
    good_log = ctx.actions.declare_file(ctx.label.name + ".control.log")
    _compile(ctx, ctx.file.src, cc_toolchain, feature_configuration, cctx, bad_log)
    _compile(ctx, ctx.file.control, cc_toolchain, feature_configuration, cctx, good_log)

    patterns = ctx.actions.declare_file(ctx.label.name + ".expected")
    ctx.actions.write(patterns, "\n".join(ctx.attr.expected_errors) + "\n")
    lines = [
        "#!/usr/bin/env bash",
        "set -uo pipefail",
        "bad='%s'" % bad_log.short_path,
        "good='%s'" % good_log.short_path,
        "patterns='%s'" % patterns.short_path,
        "src='%s'" % ctx.file.src.short_path,
        "control='%s'" % ctx.file.control.short_path,
        "fail=0",
        'if grep -q "^flowcheck-compile-exit=0$" "$good"; then echo "ok: control $control compiles";',
        'else echo "FAIL: control $control does not compile:"; cat "$good"; fail=1; fi',
        'if grep -q "^flowcheck-compile-exit=0$" "$bad"; then echo "FAIL: $src compiled; it must not"; fail=1;',
        'else echo "ok: $src does not compile"; fi',
        'while IFS= read -r p; do',
        '  [ -n "$p" ] || continue',
        '  if grep -E -q -- "$p" "$bad"; then echo "ok: a diagnostic matches: $p";',
        '  else echo "FAIL: no diagnostic matches: $p"; fail=1; fi',
        'done < "$patterns"',
        'if [ "$fail" -ne 0 ]; then echo "--- diagnostics of $src ---"; cat "$bad"; fi',
        'exit "$fail"',
    ]
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(script, "\n".join(lines) + "\n", is_executable = True)
    return [DefaultInfo(
        executable = script,
        runfiles = ctx.runfiles(files = [bad_log, good_log, patterns]),
    )]

cc_compile_fail_test = rule(
    implementation = _impl,
    test = True,
    attrs = {
        "src": attr.label(allow_single_file = [".cc"], mandatory = True),
        "control": attr.label(allow_single_file = [".cc"], mandatory = True),
        "deps": attr.label_list(providers = [CcInfo]),
        "expected_errors": attr.string_list(mandatory = True, allow_empty = False),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)
