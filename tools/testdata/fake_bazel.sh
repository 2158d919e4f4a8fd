#!/bin/sh
# A stand-in for `bazel` in the tools' tests: no build, canned answers.
#
#   query EXPR   the labels in $FAKE_BAZEL_FUZZERS (EXPR asks for tag "fuzzer")
#                or $FAKE_BAZEL_STRESS (tag "stress_campaign"), comma-separated
#   build ...    nothing; exit 0
#   info ... bazel-bin   $FAKE_BAZEL_BIN, where the tests put fake binaries
# Every call is appended to $FAKE_BAZEL_LOG if set.
[ -z "${FAKE_BAZEL_LOG:-}" ] || echo "$*" >> "$FAKE_BAZEL_LOG"
for last in "$@"; do :; done
case "$1" in
  query)
    case "$last" in
      *stress_campaign*) labels=${FAKE_BAZEL_STRESS:-} ;;
      *) labels=${FAKE_BAZEL_FUZZERS:-} ;;
    esac
    [ -z "$labels" ] || echo "$labels" | tr ',' '\n' ;;
  info)
    [ "$last" = bazel-bin ] || { echo "fake bazel: unexpected: $*" >&2; exit 2; }
    echo "$FAKE_BAZEL_BIN" ;;
  build|shutdown) ;;
  *) echo "fake bazel: unexpected: $*" >&2; exit 2 ;;
esac
