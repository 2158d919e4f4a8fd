#!/usr/bin/env bash
# tools/coverage.sh: source-based coverage of what the fuzz targets' inputs
# reach, as an HTML report and one summary line per directory.
#
#   tools/coverage.sh [--corpus=DIR] [--out=DIR] [--upstream] [--targets=T1,T2]
#
#   --corpus=DIR  kept corpora: DIR/<target>/corpus/ (the campaign's layout)
#                 or DIR/<target>/; default out/fuzz, skipped when absent
#   --out=DIR     the report; default out/coverage (DIR/index.html)
#   --upstream    build with --config=upstream (the kernel's flow-layer text)
#                 and report upstream/ too
#   --targets=T,..  only these fuzz targets (e.g. pure_fuzz): fewer to build;
#                 a name that is no fuzz target is an error (exit 2)
# Relative paths are taken from the directory the command runs in.
#
# Builds the fuzz targets as OSS-Fuzz builds its coverage reports:
# .clusterfuzzlite/build.sh with SANITIZER=coverage (clang-14's
# -fprofile-instr-generate -fcoverage-mapping, tools/oss_fuzz_env.sh), so
# after tools/oss_fuzz_check.sh's coverage build (tools/test.sh) it builds
# nothing; replays, with libFuzzer's -runs=0, the committed seeds
# (<pkg>/corpus/<target>/), regressions (<pkg>/regressions/<target>/) and
# the kept corpus; merges the profiles (llvm-profdata-14) and writes the
# report (llvm-cov-14) into a new directory that replaces DIR only once it is
# complete: DIR is a symbolic link switched by one rename(2) to the new
# report, the previous report is then deleted. Prints one line per directory
# of core/ (and upstream/ with --upstream):
#   flowcheck: coverage core/: lines 91.2% (1234/1353), branches 80.1% (321/401)
# and writes DIR/summary.txt (those lines), DIR/uncovered.txt (per source
# file of those directories, the lines executed zero times), DIR/summary.json
# (llvm-cov's per-file export).
# An input that crashes, or that a target rejects, is reported (warning) and
# its process's profile is lost; the rest still counts.
# Exit: 0 report written, 1 build or report failed, 2 bad usage.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CALLER_PWD="$PWD"
# shellcheck source=tools/oss_fuzz_env.sh
. "$ROOT/tools/oss_fuzz_env.sh"

abspath() { case "$1" in /*) echo "$1" ;; *) echo "$CALLER_PWD/$1" ;; esac; }
corpus="$ROOT/out/fuzz"
out="$ROOT/out/coverage"
upstream=0
only=""
for a in "$@"; do
  case "$a" in
    --corpus=?*) corpus="$(abspath "${a#*=}")" ;;
    --out=?*) out="$(abspath "${a#*=}")" ;;
    --upstream) upstream=1 ;;
    --targets=?*) only="${a#*=}" ;;
    -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
    *) echo "coverage: unknown option: $a (try --help)" >&2; exit 2 ;;
  esac
done
out="${out%/}"
die() { echo "coverage: ERROR: $*" >&2; exit 1; }
# Installs whatever is missing (a no-op the second time), as the README's
# two commands do: a fresh clone has no third_party/src yet.
"$ROOT/tools/bootstrap.sh" >&2 || die "tools/bootstrap.sh failed"
for tool in clang-14 llvm-profdata-14 llvm-cov-14; do
  command -v "$tool" >/dev/null || die "$tool not found (Debian package llvm-14; run tools/bootstrap.sh)"
done
cd "$ROOT"

dirs="core/"
bazel_flags=""
if ((upstream)); then bazel_flags="--config=upstream"; dirs="core/,upstream/"; fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
mapfile -t labels < <(bazel query \
  'attr(tags, "\bfuzzer\b", kind(cc_binary, //...)) except attr(tags, "\bno_campaign\b", //...)' \
  2>"$log")
((${#labels[@]})) || { cat "$log" >&2; die "bazel query found no fuzz target"; }
names=()
declare -A pkg_of  # target name -> its package
for l in "${labels[@]}"; do
  n="$(basename "${l##*:}" _fuzzer)"
  names+=("$n")
  pkg_of[$n]="${l#//}"; pkg_of[$n]="${pkg_of[$n]%%:*}"
done
if [ -n "$only" ]; then
  IFS=, read -r -a chosen <<<"$only"
  for n in "${chosen[@]}"; do
    case " ${names[*]} " in
      *" $n "*) ;;
      *) echo "coverage: --targets: '$n' is no fuzz target (known: ${names[*]} )" >&2; exit 2 ;;
    esac
  done
  names=("${chosen[@]}")
fi

parent="$(dirname "$out")"
mkdir -p "$parent"
stage="$(mktemp -d "$parent/.coverage.XXXXXX")"
trap 'rm -rf "$stage" "$stage.link" "$log"' EXIT
work="$stage/.work"
mkdir -p "$work/prof"
echo "coverage: building ${#names[@]} target(s) with coverage instrumentation" \
  "(.clusterfuzzlite/build.sh, SANITIZER=coverage)" >&2
FLOWCHECK_BAZEL_FLAGS="$bazel_flags" FLOWCHECK_FUZZ_TARGETS="$(IFS=,; echo "${names[*]}")" \
  oss_fuzz_build_sh coverage "$work/out" "$work/build" >"$work/build.log" 2>&1 \
  || { tail -n 30 "$work/build.log" >&2; die ".clusterfuzzlite/build.sh (SANITIZER=coverage) failed"; }
objects=()
for t in "${names[@]}"; do
  if [ ! -x "$work/out/$t" ]; then
    echo "coverage: skipped $t: incompatible with this build (build.sh: $(grep -m1 "_fuzzer: incompatible" "$work/build.log" || echo 'not built'))" >&2
    continue
  fi
  pkg="${pkg_of[$t]}"
  inputs=()
  for d in "$pkg/corpus/$t" "$pkg/regressions/$t" "$corpus/$t/corpus"; do
    [ -d "$d" ] && inputs+=("$d")
  done
  # A kept corpus without the campaign's corpus/ level.
  [ -d "$corpus/$t" ] && [ ! -d "$corpus/$t/corpus" ] && inputs+=("$corpus/$t")
  n=0
  ((${#inputs[@]})) && n=$(find "${inputs[@]}" -type f ! -name 'README*' | wc -l)
  # libFuzzer replays every file of the directories once (-runs=0), as
  # OSS-Fuzz's coverage job does; the first directory is the one libFuzzer
  # may write to, so it is an empty one of ours.
  mkdir -p "$work/scratch/$t"
  rc=0
  LLVM_PROFILE_FILE="$work/prof/$t-%p.profraw" "$work/out/$t" -runs=0 \
    "$work/scratch/$t" "${inputs[@]}" > "$work/$t.log" 2>&1 || rc=$?
  if ((rc != 0)); then
    echo "coverage: WARNING: $t exited $rc replaying its inputs (a crash, or an input it rejects); see its last lines:" >&2
    tail -n 5 "$work/$t.log" | sed 's/^/    /' >&2
  fi
  echo "coverage: $t: $n input(s) from ${inputs[*]:-(none)}" >&2
  objects+=("$work/out/$t")
done
((${#objects[@]})) || die "no fuzz target could be built"

profraw=("$work"/prof/*.profraw)
[ -e "${profraw[0]}" ] || die "no profile was written (every replay crashed?)"
llvm-profdata-14 merge -sparse "${profraw[@]}" -o "$work/merged.profdata" \
  || die "llvm-profdata-14 merge failed"
# The compiler recorded the sources under Bazel's name for its execution
# root, /proc/self/cwd.
cov_args=(-instr-profile="$work/merged.profdata" -path-equivalence=/proc/self/cwd,"$ROOT" "${objects[0]}")
for o in "${objects[@]:1}"; do cov_args+=(-object "$o"); done
ignore='(^|/)(external|third_party|bazel/)|^/usr/|_test\.cc$'
llvm-cov-14 show -format=html -show-branches=count -output-dir="$stage" \
  -ignore-filename-regex="$ignore" "${cov_args[@]}" || die "llvm-cov-14 show (html) failed"
llvm-cov-14 show -format=text -ignore-filename-regex="$ignore" "${cov_args[@]}" \
  > "$work/show.txt" || die "llvm-cov-14 show (text) failed"
llvm-cov-14 export -summary-only -ignore-filename-regex="$ignore" "${cov_args[@]}" \
  > "$stage/summary.json" || die "llvm-cov-14 export failed"
python3 tools/coverage_summary.py "$stage/summary.json" --dirs="$dirs" \
  --uncovered="$work/show.txt" > "$work/lines.txt" || die "no coverage summary"
grep '^flowcheck: coverage ' "$work/lines.txt" > "$stage/summary.txt"
grep '^flowcheck: uncovered ' "$work/lines.txt" | sed 's/^flowcheck: uncovered //' > "$stage/uncovered.txt" || true
[ -f "$stage/index.html" ] || die "llvm-cov-14 wrote no index.html"
rm -rf "$work"

# Publish: flush the new report, then switch the link by one rename(2).
find "$stage" -type f -exec sync {} + || die "could not flush $stage"
if [ -e "$out" ] && [ ! -L "$out" ]; then
  die "$out exists and is not the link this script manages; move it away"
fi
old="$(readlink "$out" 2>/dev/null || true)"
ln -s "$(basename "$stage")" "$stage.link" || die "could not create $stage.link"
mv -T "$stage.link" "$out" || die "could not rename $stage.link to $out"
sync "$parent" 2>/dev/null || true
trap - EXIT
[ -n "$old" ] && [ "$old" != "$(basename "$stage")" ] && rm -rf "${parent:?}/$old"
cat "$stage/summary.txt"
echo "coverage: report $out/index.html (uncovered lines: $out/uncovered.txt)" >&2
