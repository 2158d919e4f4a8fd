#!/usr/bin/env bash
# //fuzz:findings_test: every committed finding input (fuzz/findings/*/*)
# passes normally (exit 0: the hazard is an upstream divergence, listed as
# "found") and fails under --strict (exit 1: the hazard reproduces). In
# upstream mode this runs on the driver's text of the active profile.
#   findings_test.sh REPRODUCE FILE...
set -euo pipefail
reproduce="$1"
shift
[ "$#" -gt 0 ] || { echo "findings_test: no finding inputs" >&2; exit 1; }
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failed=0
for f in "$@"; do
  set +e
  "$reproduce" "$f" > "$tmp/plain" 2>&1; plain=$?
  "$reproduce" --strict "$f" > "$tmp/strict" 2>&1; strict=$?
  set -e
  if [ "$plain" -eq 0 ] && [ "$strict" -eq 1 ] && grep -q '^result: REPRODUCED' "$tmp/strict"; then
    echo "ok: $f (exit 0, --strict exit 1: $(grep -m1 -E '^ +[A-Z][0-9]+ upstream divergence' "$tmp/strict" | sed 's/^ *//' | cut -c1-100))"
  else
    echo "FAIL: $f: exit $plain without --strict (want 0), $strict with (want 1)"
    tail -15 "$tmp/strict"
    failed=1
  fi
done
rm -f "$tmp/plain" "$tmp/strict"
exit "$failed"
