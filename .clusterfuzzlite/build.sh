#!/bin/bash -eu
# .clusterfuzzlite/build.sh: flowcheck's fuzz targets under the OSS-Fuzz /
# ClusterFuzzLite build contract. Run from the repository root (the image's
# WORKDIR; tools/oss_fuzz_check.sh runs it the same way on this machine).
#
# Reads:  $CC $CXX $CFLAGS $CXXFLAGS  compiler and the flags OSS-Fuzz chose for
#                                     $SANITIZER (instrumentation included)
#         $LIB_FUZZING_ENGINE         link flag of the engine (-fsanitize=fuzzer)
#         $SANITIZER                  address | undefined | coverage
#         $FUZZING_ENGINE             libfuzzer (the only engine supported)
#         $SRC $WORK $OUT             sources, scratch, outputs
# Writes, for every cc_fuzz_test T that Bazel knows (the cc_binary T_fuzzer
# tagged "fuzzer", minus "no_campaign": the benchmark's empty target), into $OUT:
#   T                    the fuzz target
#   T_seed_corpus.zip    its committed seeds and regressions
#   T.dict               its libFuzzer dictionary
#   T.options            its libFuzzer flags (T.options next to its BUILD file,
#                        "-key=value" lines) as ClusterFuzz reads them: a
#                        [libfuzzer] section of "key = value" lines
# A target Bazel reports incompatible with this build (one that needs
# --config=upstream, i.e. the kernel's text) is skipped with a line saying so.
# Any other missing piece is an error naming the file.
#
# flowcheck's own knobs, unset in OSS-Fuzz's image (tools/coverage.sh builds
# its report from this build and sets them):
#   FLOWCHECK_BAZEL_FLAGS   more Bazel flags, space-separated (--config=upstream)
#   FLOWCHECK_FUZZ_TARGETS  only these targets, comma-separated (pure_fuzz,...)
#
# Built through Bazel with the environment's flags (not --config=fuzz: its
# ASan+UBSan are fixed, here $SANITIZER decides), into its own output
# directory per sanitizer. Kept from the fuzz config: the checkers (oracle,
# invariants, executors, lockcheck), third-party code and the emulated
# platform are built without sanitizers and coverage (--config=fuzz-scope in
# .bazelrc; docs/fuzz.md, "Speed"). SANITIZER=address adds UBSan's checks,
# fatal, as --config=fuzz does.

log() { echo "build.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

for v in CC CXX CFLAGS CXXFLAGS LIB_FUZZING_ENGINE SANITIZER SRC WORK OUT; do
  [ -n "${!v+x}" ] || die "\$$v is not set (the OSS-Fuzz build environment sets it)"
done
[ "${FUZZING_ENGINE:-libfuzzer}" = libfuzzer ] \
  || die "FUZZING_ENGINE=$FUZZING_ENGINE: only libfuzzer is supported (project.yaml)"
[ -f WORKSPACE ] && [ -f fuzz/BUILD ] \
  || die "run from flowcheck's repository root (no WORKSPACE/fuzz/BUILD in $PWD)"
mkdir -p "$OUT" "$WORK"

# The checkers (--config=fuzz-scope's first line in .bazelrc: the one list of
# them) are built without sanitizers. Here the sanitizer flags are not even on
# their command lines: each $CXXFLAGS word that asks for a sanitizer goes to
# every other file (--per_file_copt, excluding the checkers by path and by
# label), the rest to every file. So the address and undefined builds compile
# the checkers alike, and one output directory for every sanitizer lets the
# second build reuse them (tools/oss_fuzz_check.sh builds all three).
checkers=$(sed -n 's/^build:fuzz-scope --per_file_copt=\^(\([^)]*\))\.\*@-O2.*/\1/p' .bazelrc)
[ -n "$checkers" ] || die ".bazelrc: no 'build:fuzz-scope --per_file_copt=^(...).*@-O2' line naming the checkers"
san=()  # sanitizer flags, commas escaped for --per_file_copt
cxx=()
for f in $CXXFLAGS; do
  case "$f" in
    -fsanitize* | -fno-sanitize*) san+=("${f//,/\\,}") ;;
    *) cxx+=("$f") ;;
  esac
done
case "$SANITIZER" in
  address) san+=(-fsanitize=undefined -fno-sanitize-recover=all) ;;
esac

flags=(
  "--repo_env=CC=$CC"             # the toolchain Bazel configures
  --platform_suffix=-ossfuzz
  --define=fuzzing_engine=libfuzzer
)
# Before --config=fuzz-scope: its later lines (third-party code, the emulated
# platform) take -fsanitize=fuzzer-no-link back off, and the last flag wins.
((${#san[@]} == 0)) || flags+=("--per_file_copt=.*,-^(//)?(${checkers//\//[/:]})@$(IFS=,; echo "${san[*]}")")
flags+=(
  --config=fuzz-scope
  --strip=never                   # ClusterFuzz symbolizes the stacks
  --custom_malloc=//bazel:sanitizer_defaults
  # A newer clang in the image may warn where Debian's clang-14 does not;
  # tools/test.sh keeps our code warning-free, a fuzz build must not stop.
  "--per_file_copt=.*@-Wno-error"
)
for f in $CFLAGS; do flags+=("--conlyopt=$f"); done
for f in "${cxx[@]}"; do flags+=("--cxxopt=$f"); done
for f in $CXXFLAGS; do flags+=("--linkopt=$f"); done
for f in $LIB_FUZZING_ENGINE; do flags+=("--linkopt=$f"); done
for f in ${FLOWCHECK_BAZEL_FLAGS:-}; do flags+=("$f"); done
case " $CXXFLAGS " in
  # Bazel's toolchain links libstdc++ itself; code compiled against libc++
  # (OSS-Fuzz's CXXFLAGS) needs it too.
  *" -stdlib=libc++ "*) flags+=(--linkopt=-lc++) ;;
esac

case "$SANITIZER" in
  address) flags+=(--linkopt=-fsanitize=undefined) ;;
  undefined | coverage) ;;
  *) die "SANITIZER=$SANITIZER is not supported (address, undefined, coverage; the TSan suite runs in tools/test.sh)" ;;
esac
case "$SANITIZER" in
  # Bazel links with the C driver: UBSan's C++ part (vptr) must be asked for.
  address | undefined) flags+=(--linkopt=-fsanitize-link-c++-runtime) ;;
esac

# Every fuzz target Bazel knows, then those this build can make.
bazel query --repo_env="CC=$CC" \
  'attr(tags, "\bfuzzer\b", kind(cc_binary, //...)) except attr(tags, "\bno_campaign\b", //...)' \
  > "$WORK/targets.txt" 2> "$WORK/query.log" || { cat "$WORK/query.log" >&2; die "bazel query failed"; }
mapfile -t labels < "$WORK/targets.txt"
((${#labels[@]})) || die "bazel query found no fuzz target (cc_binary tagged fuzzer)"
if [ -n "${FLOWCHECK_FUZZ_TARGETS:-}" ]; then
  chosen=()
  IFS=, read -r -a names <<< "$FLOWCHECK_FUZZ_TARGETS"
  for n in "${names[@]}"; do
    match=""
    for l in "${labels[@]}"; do [ "${l##*:}" = "${n}_fuzzer" ] && match="$l"; done
    [ -n "$match" ] || die "FLOWCHECK_FUZZ_TARGETS: '$n' is no fuzz target (known: $(printf '%s ' "${labels[@]##*:}"))"
    chosen+=("$match")
  done
  labels=("${chosen[@]}")
fi
targets=()
while read -r label state; do
  if [ "$state" = ok ]; then
    targets+=("$label")
  else
    log "skipped $label: incompatible with this build (needs another config, e.g. --config=upstream)"
  fi
done < <(bazel cquery "${flags[@]}" "set(${labels[*]})" --output=starlark \
  --starlark:expr='str(target.label) + " " + ("incompatible" if "IncompatiblePlatformProvider" in providers(target) else "ok")' \
  2> "$WORK/cquery.log" || { cat "$WORK/cquery.log" >&2; die "bazel cquery failed"; })
((${#targets[@]})) || die "no fuzz target can be built with SANITIZER=$SANITIZER"

log "building ${#targets[@]} target(s) with SANITIZER=$SANITIZER: ${targets[*]}"
bazel build "${flags[@]}" "${targets[@]}"
bin="$(bazel info "${flags[@]}" bazel-bin 2>/dev/null)"

# The .options file: "-key=value" lines -> ClusterFuzz's [libfuzzer] section.
options_ini() {
  echo "[libfuzzer]"
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line#"${line%%[![:space:]]*}"}"
    [ -z "$line" ] || [ "${line:0:1}" = "#" ] && continue
    [[ "$line" =~ ^-([A-Za-z_]+)=(.*)$ ]] || die "$1: not a -key=value line: $line"
    echo "${BASH_REMATCH[1]} = ${BASH_REMATCH[2]}"
  done < "$1"
}

for label in "${targets[@]}"; do
  pkg="${label#//}"; pkg="${pkg%%:*}"
  name="${label##*:}"; t="${name%_fuzzer}"
  [ -x "$bin/$pkg/$name" ] || die "$label built but $bin/$pkg/$name is missing"
  [ -f "$pkg/$t.dict" ] || die "$pkg/$t.dict missing: every fuzz target ships a dictionary"
  [ -f "$pkg/$t.options" ] || die "$pkg/$t.options missing: every fuzz target ships its flags"
  [ -d "$pkg/corpus/$t" ] || die "$pkg/corpus/$t/ missing: every fuzz target ships seeds"
  install -m 0755 "$bin/$pkg/$name" "$OUT/$t"
  cp "$pkg/$t.dict" "$OUT/$t.dict"
  options_ini "$pkg/$t.options" > "$WORK/$t.options"
  mv "$WORK/$t.options" "$OUT/$t.options"
  # Seeds and regressions, paths kept (two directories may hold one name).
  rm -f "$WORK/$t.zip"
  dirs=("corpus/$t")
  [ -d "$pkg/regressions/$t" ] && dirs+=("regressions/$t")
  (cd "$pkg" && zip -q -r -X "$WORK/$t.zip" "${dirs[@]}" -x '*/README*')
  mv "$WORK/$t.zip" "$OUT/${t}_seed_corpus.zip"
  log "$t: binary, seed corpus ($(unzip -Z1 "$OUT/${t}_seed_corpus.zip" | grep -vc '/$') files), dict, options"
done
if [ "$SANITIZER" = coverage ]; then
  # The coverage report reads the sources at the paths the compiler recorded:
  # Bazel compiles in its execution root, which it names /proc/self/cwd.
  mkdir -p "$OUT/proc/self/cwd"
  find . \( -path ./third_party -o -path './bazel-*' -o -path ./out -o -path ./.git \) -prune \
    -o \( -name '*.cc' -o -name '*.h' \) -type f -print0 \
    | xargs -0 -r cp --parents -t "$OUT/proc/self/cwd"
fi
log "done: ${#targets[@]} target(s) in $OUT"
