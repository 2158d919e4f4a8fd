#!/usr/bin/env bash
# //fuzz:committed_inputs_test: every input in testdata/committed_inputs.golden
# (each committed seed, regression and test input, recorded by the decoders
# that came before the op table) still decodes to the same ops and runs the
# same calls with the same results: reproduce's output, but for its first
# line (the file's name and size), is exactly the recorded one.
# Args: the reproduce binary, the golden file. The inputs are in the runfiles.
set -uo pipefail
repro=$1 golden=$2
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fails=0 checked=0

# Splits the golden into one expected-output file per section.
awk -v dir="$tmp" '
  /^#/ && !started { next }
  /^=== / { started = 1; n++; file = dir "/want" n; print substr($0, 5) > (dir "/args" n); next }
  { print > file }
' "$golden"

for args in "$tmp"/args*; do
  n=${args##*/args}
  read -r -a argv <"$args"
  path=${argv[-1]}
  if [ ! -f "$path" ]; then
    echo "FAIL: $path is in the golden but not committed (remove its section if it was deleted)"
    fails=$((fails + 1))
    continue
  fi
  "$repro" "${argv[@]}" 2>&1 | tail -n +2 >"$tmp/got$n"
  if ! cmp -s "$tmp/want$n" "$tmp/got$n"; then
    echo "FAIL: reproduce ${argv[*]} differs from the golden:"
    diff "$tmp/want$n" "$tmp/got$n" | head -40
    fails=$((fails + 1))
  fi
  checked=$((checked + 1))
done

[ "$checked" -ge 18 ] || { echo "FAIL: only $checked section(s) read from $golden"; fails=$((fails + 1)); }
[ "$fails" = 0 ] && echo "committed_inputs_test: $checked input(s) decode and run as recorded"
exit $((fails > 0))
