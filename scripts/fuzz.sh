#!/bin/sh
# fuzz.sh [BUILD_DIR] [SECONDS] [TARGET...]: builds the libFuzzer targets of tests/fuzz with clang
# (ASan+UBSan) and runs each for SECONDS (default 60, or $FUZZ_SECONDS), starting from its seed
# corpus tests/fuzz/corpus/TARGET. New inputs go to BUILD_DIR/corpus/TARGET, crashes to
# BUILD_DIR/crashes/TARGET. A crash is fixed with a test, then its input is copied into
# tests/fuzz/corpus/TARGET, where `make test` replays it for good (ctest fuzz_TARGET).
set -eu
BUILD=${1:-build-fuzz}
SECS=${2:-${FUZZ_SECONDS:-60}}
[ $# -gt 2 ] && shift 2 || set --
SRC=$(cd "$(dirname "$0")/.." && pwd)
CC=clang cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DVELTOP_FUZZ=ON >/dev/null
TARGETS=${*:-$(cd "$SRC/tests/fuzz" && ls fuzz_*.c | sed 's/\.c$//')}
cmake --build "$BUILD" -j "$(nproc)" --target $TARGETS
status=0
for t in $TARGETS; do
    mkdir -p "$BUILD/corpus/$t" "$BUILD/crashes/$t"
    echo "== $t: ${SECS}s" >&2
    # -rss_limit_mb: a bomb that escapes a cap is a finding; -timeout: so is a slow input
    if ! "$BUILD/$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$BUILD/crashes/$t/" "$BUILD/corpus/$t" "$SRC/tests/fuzz/corpus/$t" \
        2>"$BUILD/$t.log"; then
        status=1
        echo "$t: FAILED, see $BUILD/$t.log and $BUILD/crashes/$t/" >&2
        tail -n 30 "$BUILD/$t.log" >&2
    else
        grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$BUILD/$t.log" | tail -n 2 >&2 || true
    fi
done
exit $status
