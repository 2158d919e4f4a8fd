# tools/oss_fuzz_env.sh: sourced by tools/oss_fuzz_check.sh and
# tools/coverage.sh. The OSS-Fuzz build environment on this machine, the one
# place it is written:
#
#   oss_fuzz_known_sanitizer SAN       status 0 for address, undefined, coverage
#   oss_fuzz_build_sh SAN OUT WORK     runs .clusterfuzzlite/build.sh from the
#                                      repository root ($ROOT, set by the caller)
#                                      as OSS-Fuzz runs it for SANITIZER=SAN;
#                                      its output goes to stdout/stderr; returns
#                                      build.sh's status
#
# CC=clang-14 CXX=clang++-14; CFLAGS = CXXFLAGS as OSS-Fuzz composes them:
# "-O1 -fno-omit-frame-pointer -gline-tables-only
# -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION", the sanitizer's flags, and
# -fsanitize=fuzzer-no-link (or, for coverage, the profile flags); OSS-Fuzz's
# -stdlib=libc++ is left out (Debian's clang-14 here has no libc++ headers).
# LIB_FUZZING_ENGINE=-fsanitize=fuzzer, FUZZING_ENGINE=libfuzzer. Two builds
# with the same SAN have the same flags, so the second is a Bazel no-op.

oss_fuzz_san_flags() {
  case "$1" in
    address) echo "-fsanitize=address -fsanitize-address-use-after-scope" ;;
    undefined) echo "-fsanitize=array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unsigned-integer-overflow,unreachable,vla-bound,vptr -fno-sanitize-recover=array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr" ;;
    coverage) echo "" ;;
    *) return 1 ;;
  esac
}

oss_fuzz_known_sanitizer() { oss_fuzz_san_flags "$1" >/dev/null; }

oss_fuzz_build_sh() {
  local san="$1" out="$2" work="$3" cflags
  cflags="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION"
  cflags+=" $(oss_fuzz_san_flags "$san")" || return 2
  if [ "$san" = coverage ]; then
    cflags+=" -fprofile-instr-generate -fcoverage-mapping -pthread -Wl,--no-as-needed -Wl,-ldl -Wl,-lm -Wno-unused-command-line-argument"
  else
    cflags+=" -fsanitize=fuzzer-no-link"
  fi
  mkdir -p "$out" "$work"
  (cd "$ROOT" && env CC=clang-14 CXX=clang++-14 CFLAGS="$cflags" CXXFLAGS="$cflags" \
    LIB_FUZZING_ENGINE=-fsanitize=fuzzer FUZZING_ENGINE=libfuzzer SANITIZER="$san" \
    ARCHITECTURE=x86_64 SRC="$ROOT" WORK="$work" OUT="$out" \
    bash -eu .clusterfuzzlite/build.sh)
}
