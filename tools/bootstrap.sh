#!/usr/bin/env bash
# tools/bootstrap.sh: make a Debian 12 (bookworm) x86-64 machine able to build
# flowcheck offline. Idempotent; a second run takes about a second.
#
#   tools/bootstrap.sh           install missing packages, fetch Abseil's source
#   tools/bootstrap.sh --check   only report what is missing (exit 1 if anything)
#
# 1. Installs the Debian packages below that are missing (as root, or via sudo).
# 2. Fetches Abseil's source from Debian's source package `abseil`, without
#    root and without touching /etc/apt: the machine's own "deb" entries are
#    turned into "deb-src" entries inside a private apt state directory, so no
#    archive host name is written anywhere in this repository. It checks the
#    tarball's sha256, unpacks it into the git-ignored third_party/src/, and
#    applies Debian's security patch.
# 3. Extracts drivers/infiniband/hw/hfi1/ (only) from the kernel source that
#    Debian's linux-source-6.1 ships into the git-ignored
#    third_party/src/linux-hfi1/ (and linux-source-6.12's into
#    third_party/src/linux-hfi1-6.12/) and records the package version and the
#    sha256 of tid_rdma.c in its SOURCE (upstream mode, docs/upstream.md).
#    Nothing of the kernel is committed.
# 4. Writes the git-ignored .bazelrc.host (sandbox lines for this machine).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC_DIR="$ROOT/third_party/src"
ABSL_DIR="$SRC_DIR/abseil-cpp"
ABSL_UPSTREAM="20220623.1"
ABSL_ORIG="abseil_${ABSL_UPSTREAM}.orig.tar.gz"
ABSL_ORIG_SHA256="abfe2897f3a30edaa74bc34365afe3c2a3cd012091a97dc7e008f7016adcd5fe"
# Debian's other patches change options.h (configure.diff) or only CMake.
ABSL_DEBIAN_PATCHES=("CVE-2025-0838.patch")
STAMP="$ABSL_DIR/.flowcheck-bootstrap"

PACKAGES=(
  bazel-bootstrap     # /usr/bin/bazel 4.2.3 and its JDK
  bazel-skylib        # -> @bazel_skylib
  bazel-platforms     # -> @platforms
  clang-14            # the compiler (.bazelrc: CC=clang-14)
  libclang-rt-14-dev  # sanitizer runtimes and libFuzzer
  llvm                # /usr/bin/llvm-symbolizer: symbolized sanitizer stacks
  lld                 # /usr/bin/ld.lld: links the fuzz config (.bazelrc) without gold's warnings
  llvm-14             # llvm-profdata-14, llvm-cov-14: tools/coverage.sh
  zip                 # .clusterfuzzlite/build.sh packs the seed corpora
  unzip               # tools/oss_fuzz_check.sh unpacks them
  googletest          # /usr/src/googletest -> @com_google_googletest
  libbenchmark-dev    # Google Benchmark -> @com_github_google_benchmark
  patch               # Debian's Abseil patch
  python3             # tools/*.py (campaign summaries, self-test runner)
  linux-source-6.1    # the kernel tree upstream mode compiles tid_rdma.c's functions from
  linux-source-6.12   # a second real tree upstream mode runs on (tools/test.sh)
  xz-utils            # unpacks it
  ca-certificates
)

check_only=0
for a in "$@"; do
  case "$a" in
    --check) check_only=1 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "bootstrap: unknown option: $a (try --help)" >&2; exit 2 ;;
  esac
done

log() { printf '[bootstrap] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# Two concurrent bootstraps (a test run and a campaign) must not interleave.
mkdir -p "$SRC_DIR"
exec 9>"$SRC_DIR/.bootstrap.lock"
flock 9

grep -q '^VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null \
  || log "WARNING: this is not Debian 12 (bookworm); package names may differ"
[ "$(dpkg --print-architecture)" = amd64 ] || log "WARNING: not amd64"

# --- 1. packages ---------------------------------------------------------------
# One dpkg-query for all of them (one per package was a second of every run,
# campaign.sh's included); a package it does not know prints no line.
declare -A installed=()
while read -r p status; do
  [ "$status" = "install ok installed" ] && installed[$p]=1
done < <(dpkg-query -W -f='${Package} ${Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)
missing=()
for p in "${PACKAGES[@]}"; do
  [ -n "${installed[$p]:-}" ] || missing+=("$p")
done
if ((${#missing[@]})); then
  ((check_only)) && die "missing packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "missing packages (${missing[*]}) and not root, no sudo"
    SUDO="sudo"
  fi
  log "installing: ${missing[*]}"
  $SUDO apt-get update -qq || die "apt-get update failed (is the Debian archive reachable?)"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null || die "apt-get install ${missing[*]} failed"
else
  log "all ${#PACKAGES[@]} packages present"
fi

# --- 2. Abseil source -------------------------------------------------------------
derive_deb_src() {
  local f
  # deb822 (*.sources): each enabled stanza whose Types has "deb", as deb-src.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    awk 'BEGIN { RS = ""; ORS = "" }
         /(^|\n)[Ee]nabled:[ \t]*[Nn]o/ { next }
         {
           n = split($0, line, "\n"); out = ""; deb = 0
           for (i = 1; i <= n; i++) {
             if (line[i] ~ /^Types:/ && line[i] ~ /[ \t]deb([ \t]|$)/) {
               deb = 1; line[i] = "Types: deb-src"
             }
             out = out line[i] "\n"
           }
           if (deb) print out "\n"
         }' "$f"
  done
  # One-line format.
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    sed -n 's/^[ \t]*deb[ \t]\+/deb-src /p' "$f"
  done
}

if [ -f "$STAMP" ] && grep -qx "$ABSL_ORIG_SHA256 ${ABSL_DEBIAN_PATCHES[*]}" "$STAMP"; then
  log "Abseil $ABSL_UPSTREAM present in ${ABSL_DIR#$ROOT/}"
else
  ((check_only)) && die "Abseil source missing (run tools/bootstrap.sh)"
  APT_STATE="$SRC_DIR/.apt"
  DL="$SRC_DIR/.download"
  rm -rf "$APT_STATE" "$DL"
  mkdir -p "$APT_STATE/sources.list.d" "$APT_STATE/lists/partial" \
           "$APT_STATE/cache/archives/partial" "$DL"
  derive_deb_src > "$APT_STATE/sources.list.d/deb-src.sources"
  [ -s "$APT_STATE/sources.list.d/deb-src.sources" ] || die "no deb entries in /etc/apt"
  APT_OPTS=(
    -o "Dir::Etc::SourceList=/dev/null"
    -o "Dir::Etc::SourceParts=$APT_STATE/sources.list.d"
    -o "Dir::State::Lists=$APT_STATE/lists"
    -o "Dir::Cache=$APT_STATE/cache"
    -o "Dir::Cache::pkgcache="
    -o "Dir::Cache::srcpkgcache="
  )
  [ "$(id -u)" -ne 0 ] || APT_OPTS+=(-o "APT::Sandbox::User=root")
  log "fetching Debian source package 'abseil' (private apt state; /etc/apt untouched)"
  apt-get "${APT_OPTS[@]}" -qq update || die "apt-get update (deb-src) failed"
  (cd "$DL" && apt-get "${APT_OPTS[@]}" -qq source --download-only abseil >/dev/null) \
    || die "apt-get source abseil failed"
  [ -f "$DL/$ABSL_ORIG" ] || die "Debian's abseil source is not $ABSL_UPSTREAM: $(ls "$DL")"
  echo "$ABSL_ORIG_SHA256  $DL/$ABSL_ORIG" | sha256sum -c --quiet - \
    || die "unexpected checksum of $ABSL_ORIG"
  rm -rf "$ABSL_DIR" "$SRC_DIR/abseil-$ABSL_UPSTREAM"
  tar -xzf "$DL/$ABSL_ORIG" -C "$SRC_DIR"
  mv "$SRC_DIR/abseil-$ABSL_UPSTREAM" "$ABSL_DIR"
  mkdir -p "$DL/debian" && tar -xJf "$DL"/abseil_*.debian.tar.xz -C "$DL/debian"
  for p in "${ABSL_DEBIAN_PATCHES[@]}"; do
    log "applying debian/patches/$p"
    patch -s -p1 -d "$ABSL_DIR" < "$DL/debian/debian/patches/$p"
  done
  for p in $(grep -E '^CVE-' "$DL/debian/debian/patches/series" || true); do
    [[ " ${ABSL_DEBIAN_PATCHES[*]} " == *" $p "* ]] || log "WARNING: Debian ships $p; flowcheck does not apply it yet"
  done
  echo "$ABSL_ORIG_SHA256 ${ABSL_DEBIAN_PATCHES[*]}" > "$STAMP"
  rm -rf "$APT_STATE" "$DL"
  log "Abseil $ABSL_UPSTREAM unpacked into ${ABSL_DIR#$ROOT/}"
fi

# --- 3. the kernel's hfi1 driver source (upstream mode) -------------------------------
# Only drivers/infiniband/hw/hfi1/ is unpacked (the tarball is the whole tree).
# SOURCE says which package version it came from and the sha256 of tid_rdma.c;
# the extraction is redone when the installed package version changes.
#   linux-source-6.1  -> third_party/src/linux-hfi1       the default tree
#   linux-source-6.12 -> third_party/src/linux-hfi1-6.12  the second real tree
#                        tools/test.sh runs upstream mode on (docs/upstream.md)
HFI1_PATH="drivers/infiniband/hw/hfi1"
unpack_hfi1() {  # PACKAGE DIR
  local pkg="$1" dir="$2" version tar tmp sha
  tar="/usr/src/$pkg.tar.xz"
  version="$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)"
  [ -n "$version" ] || die "package $pkg is not installed"
  if [ -f "$dir/SOURCE" ] &&
     grep -qx "package: $pkg $version" "$dir/SOURCE" &&
     [ "$(sha256sum < "$dir/$HFI1_PATH/tid_rdma.c" 2>/dev/null | cut -d' ' -f1)" = \
       "$(sed -n 's/^tid_rdma.c sha256: //p' "$dir/SOURCE" 2>/dev/null)" ]; then
    log "kernel hfi1 source ($pkg $version) present in ${dir#$ROOT/}"
    return
  fi
  ((check_only)) && die "kernel hfi1 source of $pkg missing in ${dir#$ROOT/} (run tools/bootstrap.sh)"
  [ -r "$tar" ] || die "$tar missing (package $pkg)"
  log "unpacking $HFI1_PATH from $tar ($pkg $version)"
  tmp="$(mktemp -d "$SRC_DIR/.linux-hfi1.XXXXXX")"
  # xz -T0: Debian's kernel tarballs are multi-block, so the decompression
  # (the whole ~1 GB stream, for one directory) runs on every core: ~8 s -> ~5 s
  # each on 2 cores.
  tar --use-compress-program='xz -T0' -xf "$tar" -C "$tmp" --strip-components=1 --wildcards "*/$HFI1_PATH/*" \
    || { rm -rf "$tmp"; die "could not unpack $HFI1_PATH from $tar"; }
  [ -f "$tmp/$HFI1_PATH/tid_rdma.c" ] || { rm -rf "$tmp"; die "$tar has no $HFI1_PATH/tid_rdma.c"; }
  sha="$(sha256sum < "$tmp/$HFI1_PATH/tid_rdma.c" | cut -d' ' -f1)"
  {
    echo "package: $pkg $version"
    echo "tid_rdma.c sha256: $sha"
  } > "$tmp/SOURCE"
  rm -rf "$dir"
  mv "$tmp" "$dir"
  log "kernel hfi1 source unpacked into ${dir#$ROOT/} (tid_rdma.c sha256 $sha)"
}
unpack_hfi1 linux-source-6.1 "$SRC_DIR/linux-hfi1"
unpack_hfi1 linux-source-6.12 "$SRC_DIR/linux-hfi1-6.12"

# --- 4. host-specific bazelrc -------------------------------------------------------
# Hide Debian's -dev headers of Abseil and GoogleTest from sandboxed actions, so
# a missing `deps` entry fails instead of compiling against a different build.
# linux-sandbox fails every action if a blocked path does not exist, hence only
# existing ones.
host_rc="$ROOT/.bazelrc.host"
{
  echo "# Written by tools/bootstrap.sh for this machine; git-ignored."
  for d in /usr/include/absl /usr/include/gtest /usr/include/gmock; do
    [ -d "$d" ] && echo "build --sandbox_block_path=$d"
  done
  true
} > "$host_rc.tmp"
if ! cmp -s "$host_rc.tmp" "$host_rc" 2>/dev/null; then
  mv "$host_rc.tmp" "$host_rc"
  log "wrote .bazelrc.host"
else
  rm -f "$host_rc.tmp"
fi
log "ready"
