#!/usr/bin/env bash
# faults_flood.sh: a misbehaving API server gets a few requests, not a flood. veltop (full screen,
# every reflector, the Velero log) runs for a bounded time against veltop-sim with one fault at a
# time and the sim's request counter is read before and after: every watch answered 410 at once
# (was 14 711 requests in 5 s), every watch ending after one BOOKMARK (7 205), every request
# answered 429 with Retry-After: 999999999999 (was obeyed: "next in 999999999993s").
. "$(dirname "$0")/tui_lib.bash" || exit 1

stats() { # the sim's request count (this GET included)
    python3 -c 'import json,sys,urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1] + "/debug/stats"))["requests"])' "$TUI_SIM_URL"
}

# runs veltop for 6 s against a sim with the given faults; prints the API requests it made
flood_count() {
    TUI_SIM_PORT=""
    tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet --faults "$1"
    local before after
    before=$(stats)
    tui_start 120 30 --kubeconfig "$TUI_DIR/kubeconfig"
    tui_wait 'veltop' 10
    sleep 6 # a bounded time on purpose: what is measured is how much veltop asks in it
    after=$(stats)
    tmux -L "$TUI_SOCK" kill-server 2>/dev/null || true
    tui_sim_kill
    echo $((after - before - 1))
}

n=$(flood_count expire-always)
echo "expire-always: $n requests in 6 s"
# 8 reflectors: a list and a watch each, then re-lists after 0.8-1.6 s, 1.6-3.2 s, 3.2-6.4 s
[ "$n" -le 120 ] || tui_fail "expire-always: $n requests in 6 s"
[ "$n" -ge 16 ] || tui_fail "expire-always: only $n requests (not even one list and watch each)"

n=$(flood_count bookmark-close)
echo "bookmark-close: $n requests in 6 s"
[ "$n" -le 120 ] || tui_fail "bookmark-close: $n requests in 6 s"

# Retry-After is obeyed but capped at the backoff's 30 s
TUI_SIM_PORT=""
tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet --faults error429=1,retry-after=999999999999
tui_start 120 30 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait 'retrying \(attempt 1, next in [0-9]+s\)' 15
s=$(tui_line 'retrying' | sed -n 's/.*next in \([0-9]*\)s.*/\1/p')
[ "$s" -le 30 ] && [ "$s" -ge 25 ] || tui_fail "Retry-After not capped to 30 s: next in ${s}s"
echo "PASS"
