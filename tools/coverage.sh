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
# Builds every fuzz target's replay binary (the cc_test <target> that
# cc_fuzz_test makes: LLVMFuzzerTestOneInput + a main that runs each file
# once; no libFuzzer, no sanitizer) with clang-14's -fprofile-instr-generate
# -fcoverage-mapping on our own code (common, core, fuzz, lockcheck,
# upstream), in its own output directory (-coverage); replays the committed
# seeds (<pkg>/corpus/<target>/), regressions (<pkg>/regressions/<target>/)
# and the kept corpus; merges the profiles (llvm-profdata-14) and writes the
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
flags=(--platform_suffix=-coverage
       "--per_file_copt=^(common|core|fuzz|lockcheck|upstream)/,/upstream/kernel_tid_rdma\.cc\$@-fprofile-instr-generate,-fcoverage-mapping,-fcoverage-compilation-dir=."
       --linkopt=-fprofile-instr-generate
       # One static binary per target: fastbuild links tests against shared
       # libraries, whose coverage maps llvm-cov would not see in the binary.
       --dynamic_mode=off)
if ((upstream)); then flags+=(--config=upstream); dirs="core/,upstream/"; fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
mapfile -t labels < <(bazel query \
  'attr(tags, "\bfuzz_regression\b", kind(cc_test, //...)) except attr(tags, "\bno_campaign\b", //...)' \
  2>"$log")
((${#labels[@]})) || { cat "$log" >&2; die "bazel query found no fuzz target"; }
if [ -n "$only" ]; then
  chosen=()
  IFS=, read -r -a names <<<"$only"
  for n in "${names[@]}"; do
    match=""
    for l in "${labels[@]}"; do [ "${l##*:}" = "$n" ] && match="$l"; done
    [ -n "$match" ] || { echo "coverage: --targets: '$n' is no fuzz target (known: $(printf '%s ' "${labels[@]##*:}"))" >&2; exit 2; }
    chosen+=("$match")
  done
  labels=("${chosen[@]}")
fi
targets=()
while read -r label state; do
  if [ "$state" = ok ]; then targets+=("$label")
  else echo "coverage: skipped $label: incompatible with this build" >&2; fi
done < <(bazel cquery "${flags[@]}" "set(${labels[*]})" --output=starlark \
  --starlark:expr='str(target.label) + " " + ("incompatible" if "IncompatiblePlatformProvider" in providers(target) else "ok")' \
  2>"$log")
((${#targets[@]})) || { cat "$log" >&2; die "no fuzz target can be built"; }
echo "coverage: building ${#targets[@]} target(s) with coverage instrumentation" >&2
bazel build "${flags[@]}" "${targets[@]}" || die "bazel build failed"
bin="$(bazel info "${flags[@]}" bazel-bin 2>/dev/null)"

parent="$(dirname "$out")"
mkdir -p "$parent"
stage="$(mktemp -d "$parent/.coverage.XXXXXX")"
trap 'rm -rf "$stage" "$stage.link" "$log"' EXIT
work="$stage/.work"
mkdir -p "$work/prof"
objects=()
for label in "${targets[@]}"; do
  pkg="${label#//}"; pkg="${pkg%%:*}"; t="${label##*:}"
  inputs=()
  for d in "$pkg/corpus/$t" "$pkg/regressions/$t" "$corpus/$t/corpus"; do
    [ -d "$d" ] && inputs+=("$d")
  done
  # A kept corpus without the campaign's corpus/ level.
  [ -d "$corpus/$t" ] && [ ! -d "$corpus/$t/corpus" ] && inputs+=("$corpus/$t")
  n=0
  ((${#inputs[@]})) && n=$(find "${inputs[@]}" -type f ! -name 'README*' | wc -l)
  rc=0
  LLVM_PROFILE_FILE="$work/prof/$t-%p.profraw" "$bin/$pkg/$t" "${inputs[@]}" \
    > "$work/$t.log" 2>&1 || rc=$?
  if ((rc != 0)); then
    echo "coverage: WARNING: $t exited $rc replaying its inputs (a crash, or an input it rejects); see its last lines:" >&2
    tail -n 5 "$work/$t.log" | sed 's/^/    /' >&2
  fi
  echo "coverage: $t: $n input(s) from ${inputs[*]:-(none)}" >&2
  objects+=("$bin/$pkg/$t")
done

profraw=("$work"/prof/*.profraw)
[ -e "${profraw[0]}" ] || die "no profile was written (every replay crashed?)"
llvm-profdata-14 merge -sparse "${profraw[@]}" -o "$work/merged.profdata" \
  || die "llvm-profdata-14 merge failed"
cov_args=(-instr-profile="$work/merged.profdata" "${objects[0]}")
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
