#!/bin/sh
# Runs the real veltop under valgrind: once as `--demo --once --json`, then full-screen in tmux
# through every screen (list, filter, detail, [ ], volumes, live and stored logs with search,
# results, describe, help, health) until `q`. Fails on any leak or memory error outside ncurses' own caches.
set -eu
BUILD=${1:-build}
SRC=$(cd "$(dirname "$0")/.." && pwd)
VELTOP=$(cd "$BUILD" && pwd)/veltop
TMP=$(mktemp -d)
SOCK="veltop-vg-$$"
VG="valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible"
VG="$VG --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99"
VG="$VG --suppressions=$SRC/scripts/valgrind.supp"
cleanup() {
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT

if ! $VG "$VELTOP" --demo --once --json >"$TMP/once.json" 2>"$TMP/once.log"; then
    echo "valgrind: veltop --demo --once --json FAILED" >&2
    cat "$TMP/once.log" >&2
    exit 1
fi
grep -q '"runs":\[{' "$TMP/once.json" || { echo "valgrind: --once printed no runs" >&2; exit 1; }
echo "valgrind: veltop --demo --once --json clean"

# --serve: scraped in both formats while the demo runs, then stopped by SIGTERM (status 0)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
$VG "$VELTOP" --demo --serve "127.0.0.1:$PORT" 2>"$TMP/serve.log" &
SERVE_PID=$!
i=0
until curl -s --max-time 2 "http://127.0.0.1:$PORT/metrics" | grep -q '^veltop_run_items_done'; do
    i=$((i + 1))
    [ $i -lt 600 ] || { echo "valgrind: --serve served no run" >&2; kill "$SERVE_PID"; exit 1; }
    sleep 0.1
done
curl -s --max-time 2 -H 'Accept: application/openmetrics-text' "http://127.0.0.1:$PORT/metrics" | tail -n 1 | grep -q '^# EOF$' ||
    { echo "valgrind: --serve OpenMetrics has no # EOF" >&2; kill "$SERVE_PID"; exit 1; }
curl -s --max-time 2 "http://127.0.0.1:$PORT/nothing" >/dev/null
kill -TERM "$SERVE_PID"
rc=0
wait "$SERVE_PID" || rc=$?
if [ "$rc" != 0 ]; then
    echo "valgrind: veltop --demo --serve FAILED (status $rc)" >&2
    cat "$TMP/serve.log" >&2
    exit 1
fi
echo "valgrind: veltop --demo --serve clean"

command -v tmux >/dev/null || { echo "valgrind: tmux missing, full-screen run skipped"; exit 0; }
tmux -L "$SOCK" new-session -d -x 120 -y 40 \
    "$VG --log-file=$TMP/tui.log $VELTOP --demo; echo \$? >$TMP/tui.rc"
screen() { tmux -L "$SOCK" capture-pane -p -t 0 2>/dev/null || true; }
wait_for() { # bounded polling of the screen for a pattern
    i=0
    while [ $i -lt 600 ]; do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    echo "valgrind: timed out waiting for /$1/ on the screen:" >&2
    screen >&2
    exit 1
}
keys() { tmux -L "$SOCK" send-keys -t 0 "$@"; }
wait_for 'nightly-2026'
# both lists in (rows show as each arrives); full-cluster-migration has volumes. It is picked by
# name, not by row: where it stands depends on the clock (after 01:00 UTC the demo's schedule
# makes today's nightly at the start, the newest row). The filter finds it, clearing the filter
# keeps the selection on it, so [ and ] below have neighbours.
wait_for 'payments-restore-drill'
keys / f u l l - c l u s t e r Enter; wait_for 'B full-cluster-migration'
keys / Escape;              wait_for 'payments-restore-drill'
keys Enter;                 wait_for '^Backup full-cluster-migration'
keys ']';                   wait_for 'Resources'
keys '[' v;                 wait_for 'POD/VOLUME'
keys Escape l;              wait_for 'LIVE log'
keys G / P r o c e s s Enter n N; wait_for 'Processing item'
keys Escape Escape / n i g h t l y Enter; wait_for 'nightly'
keys G Enter;               wait_for 'Resources'
keys l;                     wait_for 'stored log'
keys G;                     wait_for 'Backed up a total of'
keys g / B a c k e d Enter; wait_for 'Backed up [0-9]+ items out of'
keys Escape Escape r;       wait_for 'Errors|Warnings|errors|warnings'
keys y;                     wait_for 'as YAML'
keys o;                     wait_for 'as velero describe'
keys o;                     wait_for 'as JSON'
keys Escape Escape '?';     wait_for 'q'
keys Escape H;              wait_for '^Node agents \('
keys G g Escape q
i=0
while [ ! -s "$TMP/tui.rc" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
rc=$(cat "$TMP/tui.rc" 2>/dev/null || echo timeout)
if [ "$rc" != 0 ]; then
    echo "valgrind: veltop --demo (full screen) FAILED (exit $rc)" >&2
    cat "$TMP/tui.log" >&2
    exit 1
fi
echo "valgrind: veltop --demo full screen clean"
