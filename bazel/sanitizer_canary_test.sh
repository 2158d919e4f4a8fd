#!/usr/bin/env bash
# sanitizer_canary_test.sh MODE RACE HEAP_OVERFLOW SIGNED_OVERFLOW
# MODE is the active sanitizer config (tsan, asan or none). Each canary has one
# real bug; this checks that the active config's sanitizers report exactly the
# bugs they are meant to see, fatally, and that nothing else fires.
set -uo pipefail
mode="$1" race="$2" heap="$3" ubsan="$4"
fail=0

# expect NAME BINARY WANT_FAIL PATTERN
expect() {
  local name="$1" bin="$2" want_fail="$3" pattern="$4" out rc
  out="$("$bin" 2>&1)"; rc=$?
  if [ "$want_fail" = yes ]; then
    if [ "$rc" -ne 0 ] && grep -q -- "$pattern" <<<"$out"; then
      echo "ok: $name: caught ($pattern, exit $rc)"
    else
      echo "FAIL: $name: expected a '$pattern' report and a nonzero exit; got exit $rc:"
      echo "$out" | head -40
      fail=1
    fi
  else
    if [ "$rc" -eq 0 ]; then
      echo "ok: $name: silent without the sanitizer that catches it (exit 0)"
    else
      echo "FAIL: $name: expected exit 0 in mode '$mode', got $rc:"
      echo "$out" | head -40
      fail=1
    fi
  fi
}

case "$mode" in
  tsan)
    expect race "$race" yes "ThreadSanitizer: data race"
    expect heap_overflow "$heap" no ""
    expect signed_overflow "$ubsan" no ""
    ;;
  asan)
    expect race "$race" no ""
    expect heap_overflow "$heap" yes "AddressSanitizer: heap-buffer-overflow"
    expect signed_overflow "$ubsan" yes "runtime error: signed integer overflow"
    ;;
  none)
    expect race "$race" no ""
    expect heap_overflow "$heap" no ""
    expect signed_overflow "$ubsan" no ""
    ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
exit "$fail"
