#!/usr/bin/env bash
# upstream/pages/extract_pages_test.sh EXTRACTOR FUNCTIONS TID_RDMA_C
# The C unit's extraction on the kernel tree in use: the real text extracts;
# a page helper missing from it, or declared differently, fails with exit 1
# and exactly one line naming the function (what the build then prints).
set -uo pipefail
extractor=$1 functions=$2 source=$3
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/extract_pages.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

extract() {  # SOURCE OUT -> exit status; stderr in $tmp/err
  python3 "$extractor" --source="$1" --functions="$functions" \
    --prelude=upstream/pages/shim.h --trailer=upstream/pages/trampolines.h --out="$2" 2>"$tmp/err"
}

# expect_one_line NAME SOURCE PATTERN
expect_one_line() {
  local name=$1 src=$2 pattern=$3
  if cmp -s "$src" "$source"; then
    echo "FAIL: $name: the edit did not change the kernel's text"; fail=1; return
  fi
  extract "$src" "$tmp/$name.out.c"; local rc=$?
  local lines; lines=$(wc -l <"$tmp/err")
  if [ "$rc" -eq 1 ] && [ "$lines" -eq 1 ] && grep -qE -- "$pattern" "$tmp/err" && [ ! -e "$tmp/$name.out.c" ]; then
    echo "ok: $name: $(cat "$tmp/err")"
  else
    echo "FAIL: $name: exit $rc, $lines line(s), no output expected; stderr:"; cat "$tmp/err"; fail=1
  fi
}

if extract "$source" "$tmp/real.c" && grep -q "upstream_tid_flush_pages" "$tmp/real.c"; then
  echo "ok: the real text extracts ($(grep -c '^#line' "$tmp/real.c") #line markers)"
else
  echo "FAIL: the real text does not extract:"; cat "$tmp/err"; fail=1
fi

sed 's/^static u32 tid_flush_pages(/static u32 tid_flush_pages_v2(/' "$source" >"$tmp/missing.c"
expect_one_line missing "$tmp/missing.c" '^upstream: .*: tid_flush_pages: not found'

sed '/^static u32 tid_rdma_find_phys_blocks_8k(/,/^{/ s/u32 npages/int npages/' "$source" >"$tmp/changed.c"
expect_one_line changed "$tmp/changed.c" \
  "^upstream: .*: tid_rdma_find_phys_blocks_8k: declaration changed at 'int' \(expected 'u32'\)"
exit "$fail"
