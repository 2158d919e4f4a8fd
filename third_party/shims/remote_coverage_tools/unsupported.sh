#!/bin/sh
echo "flowcheck: bazel coverage is not set up (offline stand-in for @remote_coverage_tools)" >&2
exit 1
