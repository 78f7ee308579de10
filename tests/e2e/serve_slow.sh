#!/usr/bin/env bash
# serve_slow.sh: slow clients cannot starve `veltop --serve`. 1 000 connections from four loopback
# addresses send a request's headers one line every 2 s (reconnecting when dropped) while an
# honest scraper asks for /metrics ten times a second, from one of those addresses and from
# another: every honest scrape is answered (200, metrics) within 1 s throughout, the slow ones
# are dropped (each after 5 s, or sooner when a newcomer takes its slot), and when they go every
# descriptor comes back. Twice: under `ulimit -S -n 1024` (veltop raises its soft limit to the
# hard one, as Go programs do: /proc says so), and under a hard limit of 1024 too, where veltop
# serves 240 connections at once and the rest wait or are dropped.
. "$(dirname "$0")/tui_lib.bash" || exit 1
for t in curl python3; do
    command -v "$t" >/dev/null || {
        echo "SKIP: $t not installed (sh scripts/deps.sh)"
        exit 0
    }
done
: "${SRC_DIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 4096 ] || {
    echo "SKIP: the hard open-file limit ($(ulimit -Hn)) is too low for 1 000 client connections"
    exit 0
}

VELTOP_PID=""
trap '[ -n "$VELTOP_PID" ] && kill "$VELTOP_PID" 2>/dev/null; tui_cleanup' EXIT
tui_sim_start --scenario empty --passive --quiet

nfds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

phase() { # LABEL ULIMIT-ARGS...
    local label=$1
    shift
    local port
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    (ulimit "$@" && exec "$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --serve "127.0.0.1:$port") \
        >"$TUI_DIR/veltop.out" 2>"$TUI_DIR/veltop.err" &
    VELTOP_PID=$!
    local m="http://127.0.0.1:$port" end=$((SECONDS + 30))
    until curl -sf --max-time 2 "$m/metrics" | grep -q '^veltop_cluster_reachable{.*} 1$'; do
        kill -0 "$VELTOP_PID" 2>/dev/null || { cat "$TUI_DIR/veltop.err" >&2; tui_fail "veltop --serve exited"; }
        [ "$SECONDS" -le "$end" ] || tui_fail "$label: veltop --serve never read the cluster"
        sleep 0.1
    done
    local soft hard
    read -r soft hard < <(awk '/^Max open files/ {print $4, $5}' "/proc/$VELTOP_PID/limits")
    echo "$label: veltop's open-file limit soft $soft hard $hard"
    [ "$soft" = "$hard" ] || tui_fail "$label: the soft limit ($soft) was not raised to the hard one ($hard)"
    curl -sf --max-time 2 "$m/metrics" | grep -qx "veltop_open_files_limit $soft" ||
        tui_fail "$label: veltop_open_files_limit is not $soft"
    local base
    base=$(nfds "$VELTOP_PID")

    python3 "$SRC_DIR/tests/e2e/slowloris.py" "$port" 15 1000 >"$TUI_DIR/slow.json" 2>"$TUI_DIR/slow.err" ||
        { cat "$TUI_DIR/slow.json" "$TUI_DIR/slow.err" >&2; tui_fail "$label: honest scrapes were not all answered within 1 s"; }
    echo "$label: $(cat "$TUI_DIR/slow.json")"
    python3 - "$TUI_DIR/slow.json" <<'PY' || tui_fail "$label: the slow clients did not reach veltop"
import json, sys
f = json.load(open(sys.argv[1]))
assert f["scrapes"] >= 50 and f["answered"] == f["scrapes"], f
assert f["peak_open"] >= 200, f      # they did hold connections
assert f["dropped"] >= 200, f        # and veltop dropped them (5 s headers deadline, or a newcomer)
PY
    # every descriptor comes back once they have gone
    end=$((SECONDS + 15))
    until [ "$(nfds "$VELTOP_PID")" -le $((base + 2)) ]; do
        [ "$SECONDS" -le "$end" ] || tui_fail "$label: $(nfds "$VELTOP_PID") descriptors open, $base before the slow clients"
        sleep 0.1
    done
    curl -sf --max-time 1 "$m/metrics" | grep -q '^veltop_cluster_reachable{.*} 1$' ||
        tui_fail "$label: no scrape after the slow clients"
    echo "$label: descriptors back to $(nfds "$VELTOP_PID") ($base before): ok"
    kill -TERM "$VELTOP_PID"
    local rc=0
    wait "$VELTOP_PID" || rc=$?
    VELTOP_PID=""
    [ "$rc" = 0 ] || tui_fail "$label: SIGTERM: exit $rc"
}

phase "soft 1024" -S -n 1024
phase "hard 1024" -n 1024
echo "serve_slow: ok"
