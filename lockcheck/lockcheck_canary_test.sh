#!/usr/bin/env bash
# lockcheck_canary_test.sh MODE CANARY
# MODE is the active sanitizer config (tsan, asan or none). Under TSan, the
# canary's race must be reported even though both threads went through every
# lockcheck slow path (lockcheck adds no happens-before edges), and the
# control run (the same with one shared std::mutex) must be silent (the
# canary does see such an edge). In other configs both runs exit 0.
set -uo pipefail
mode="$1" canary="$2"
fail=0

out="$("$canary" lockcheck 2>&1)"; rc=$?
if [ "$mode" = tsan ]; then
  if [ "$rc" -ne 0 ] && grep -q "ThreadSanitizer: data race" <<<"$out" \
     && grep -q "lockcheck_canary_racy_int" <<<"$out"; then
    echo "ok: TSan still reports the race through lockcheck's slow paths (exit $rc)"
  else
    echo "FAIL: expected TSan to report the race on lockcheck_canary_racy_int; got exit $rc:"
    echo "$out" | head -60
    fail=1
  fi
else
  if [ "$rc" -eq 0 ]; then echo "ok: lockcheck mode exits 0 without TSan"; else
    echo "FAIL: lockcheck mode: exit $rc:"; echo "$out" | head -60; fail=1; fi
fi

out="$("$canary" control 2>&1)"; rc=$?
if [ "$rc" -eq 0 ] && ! grep -q "ThreadSanitizer" <<<"$out"; then
  echo "ok: control (a real mutex between the threads) is silent (exit 0)"
else
  echo "FAIL: control mode: expected exit 0 and no TSan report; got exit $rc:"
  echo "$out" | head -60
  fail=1
fi
echo "reproduce: bazel run ${mode/none/}${mode:+ }//lockcheck:canary_race_through_lockcheck -- [lockcheck|control]" | sed 's/^reproduce: bazel run tsan /reproduce: bazel run --config=tsan /; s/^reproduce: bazel run asan /reproduce: bazel run --config=asan /'
exit "$fail"
