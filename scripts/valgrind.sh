#!/bin/sh
# Runs every Check unit suite of build dir $1 under valgrind; fails on any leak or memory error.
set -eu
BUILD=${1:-build}
status=0
for t in "$BUILD"/test_*; do
    [ -x "$t" ] || continue
    if ! CK_FORK=no CK_DEFAULT_TIMEOUT=600 VELTOP_UNDER_VALGRIND=1 valgrind -q --leak-check=full \
        --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
        --error-exitcode=99 "$t" >"$t.valgrind.log" 2>&1; then
        echo "valgrind: $(basename "$t") FAILED" >&2
        tail -n 60 "$t.valgrind.log" >&2
        status=1
    else
        # Check's own summary line ("100%: Checks: N, Failures: 0, Errors: 0"), for CI to read
        echo "valgrind: $(basename "$t") clean: $(grep -E '^[0-9]+%: Checks: ' "$t.valgrind.log" | tail -n 1)"
    fi
done
exit $status
