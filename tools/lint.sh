#!/usr/bin/env bash
# tools/lint.sh: repository rules no compiler checks. Run by tools/test.sh.
#  1. Layering: common/ knows no layer; lockcheck/ knows nothing of core/,
#     program/, fuzz/, stress/; core/ knows nothing of program/, fuzz/ or
#     stress/; sched/ knows nothing of core/, program/, fuzz/, stress/;
#     program/ (the one engine) knows nothing of fuzz/ or stress/, which are
#     its two front ends and know nothing of each other. (Bazel visibility
#     enforces the same for deps; this also catches a stray #include.)
#     upstream/ knows core and lockcheck only; core's sources never include
#     upstream/ (only core/BUILD's upstream-mode select names it).
#  2. No absl/synchronization in flowcheck's code: Abseil 20220623's Mutex,
#     Notification, Barrier and BlockingCounter give TSan false positives
#     (README, "Abseil under TSan"); our locks are lockcheck's, std::mutex or atomics.
#     Nor absl/strings, absl/flags or absl/debugging: their sources and headers were a fifth
#     of every build's compile (docs/build.md); common/strings.h formats and
#     stress/flags.cc parses.
#  3. No package-archive host name in the repository.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fail=0
bad() { echo "lint: $*"; fail=1; }

srcs() { git ls-files --cached --others --exclude-standard -- "$@" 2>/dev/null | grep -E '\.(cc|h)$' || true; }

# forbid DIR LAYERS: no source under DIR includes a header of LAYERS ("a|b").
forbid() {
  local dir=$1 layers=$2 f
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    if grep -qE "#include \"($layers)/" "$f"; then
      bad "layering: $dir must not include ${layers//|//}: $f: $(grep -nE "#include \"($layers)/" "$f" | head -1)"
    fi
  done < <(srcs "$dir")
}
forbid common 'lockcheck|core|program|fuzz|stress|sched|upstream'
forbid lockcheck 'core|program|fuzz|stress|sched|upstream'
forbid core 'program|fuzz|stress|sched|upstream'
forbid sched 'core|program|fuzz|stress|upstream'
forbid upstream 'program|fuzz|stress|sched'
forbid program 'fuzz|stress'
forbid fuzz 'stress'
forbid stress 'fuzz'

while IFS= read -r f; do
  [ -n "$f" ] || continue
  if grep -q '#include "absl/synchronization' "$f"; then
    bad "absl/synchronization is not TSan-safe here: $f"
  fi
  if grep -qE '#include "absl/(strings|flags|debugging)/' "$f"; then
    bad "absl/strings, absl/flags and absl/debugging are not used (common/strings.h, stress/flags.cc, lockcheck/internal/stack.cc): $f"
  fi
done < <(srcs bazel common core fuzz lockcheck program sched stress tools upstream)

if git grep -n -I -E 'deb\.debian\.org|security\.debian\.org|snapshot\.debian\.org|ftp\.[a-z.]*debian\.org' -- . ':!tools/lint.sh' >/dev/null 2>&1; then
  bad "a package archive host name is written in the repository:"
  git grep -n -I -E 'deb\.debian\.org|security\.debian\.org|snapshot\.debian\.org|ftp\.[a-z.]*debian\.org' -- . ':!tools/lint.sh'
fi

if [ "$fail" -eq 0 ]; then echo "lint: ok"; fi
exit "$fail"
