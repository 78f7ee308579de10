#!/bin/sh
# Runs every Check unit suite of build dir $1 under valgrind, then the program itself
# (scripts/valgrind-program.sh); fails on any leak or memory error.
set -eu
BUILD=${1:-build}
status=0
passed=0
failed=0
for t in "$BUILD"/test_*; do
    [ -x "$t" ] || continue
    if ! CK_FORK=no CK_DEFAULT_TIMEOUT=600 VELTOP_UNDER_VALGRIND=1 valgrind -q --leak-check=full \
        --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
        --error-exitcode=99 "$t" >"$t.valgrind.log" 2>&1; then
        echo "valgrind: $(basename "$t") FAILED" >&2
        tail -n 60 "$t.valgrind.log" >&2
        status=1
        failed=$((failed + 1))
    else
        passed=$((passed + 1))
        # Check's own summary line ("100%: Checks: N, Failures: 0, Errors: 0"), for CI to read
        echo "valgrind: $(basename "$t") clean: $(grep -E '^[0-9]+%: Checks: ' "$t.valgrind.log" | tail -n 1)"
    fi
done
# the program itself, once and full-screen through every screen
if sh "$(dirname "$0")/valgrind-program.sh" "$BUILD"; then
    passed=$((passed + 1))
else
    status=1
    failed=$((failed + 1))
fi
echo "valgrind: $passed passed, $failed failed"
exit $status
