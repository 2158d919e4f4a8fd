"""Which targets upstream mode (--config=upstream, docs/upstream.md) builds."""

# For the tests of the harness's own plumbing, whose outcome does not depend
# on the kernel text: flags, configs, the JSON documents, the input formats
# and seeds, the failure and watchdog paths, the id tables, the op table's
# extension, the program space's enumeration. Upstream mode links them
# against the kernel's text too, but they would check the same thing again,
# so they are incompatible there (skipped by `bazel test //...`);
# tools/test.sh runs them once, under TSan (docs/build.md, "What the test
# command runs").
TEXT_INDEPENDENT = select({
    "//core:upstream": ["@platforms//:incompatible"],
    "//conditions:default": [],
})
