#!/usr/bin/env bash
# tui_stall.sh: "is anything still moving?" A backup in progress whose item counter stops says
# "stalled Ns" in the list's RATE/ETA cells and in the detail screen (and shows no ETA); when the
# counter moves again the stall goes away and the ETA is back. While the cluster is unreachable no
# run is called stalled (no data is not a stall): the rows are kept, dimmed, with the data's age.
# A total that is still Velero's estimate reads "of ~N". The sim runs --passive so the counters
# move only when this test patches them.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario empty --passive --quiet

# api METHOD PATH [JSON]: one request to the sim
api() {
    python3 - "$TUI_SIM_URL" "$@" <<'PY' || tui_fail "api $*"
import sys, urllib.request
url, method, path = sys.argv[1], sys.argv[2], sys.argv[3]
body = sys.argv[4].encode() if len(sys.argv) > 4 else None
ctype = "application/merge-patch+json" if method == "PATCH" else "application/json"
req = urllib.request.Request(url + path, data=body, method=method, headers={"Content-Type": ctype})
assert urllib.request.urlopen(req).status in (200, 201)
PY
}
B=/apis/velero.io/v1/namespaces/velero/backups
started=$(date -u -d '-60 seconds' +%Y-%m-%dT%H:%M:%SZ)
api POST "$B" '{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"stuck-run","namespace":"velero"},"spec":{},"status":{"phase":"InProgress","startTimestamp":"'"$started"'","progress":{"totalItems":100,"itemsBackedUp":40}}}'

tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
# attached mid-run: the rate is seeded from startTimestamp (40 items in ~60 s), the total is an
# estimate while InProgress
tui_wait 'B stuck-run +InProgress +.* 40/~100 +0\.[67]/s +1m[0-9]{2}s '
# nothing moves: its cadence is not known yet (no move seen since veltop attached, and a server
# may patch many items at once every few seconds), so after 30 s (3 of Velero's 10 s updates)
# the row says so, in place of rate and ETA; not a few seconds after attaching
tui_wait 'B stuck-run +InProgress +.* 40/~100 +[0-9.]+/s +1m[0-9]{2}s ' 5
tui_wait 'B stuck-run +InProgress +.* 40/~100 +stalled 3[0-9]s ' 45
tui_keys Enter
tui_wait '^Items .* 40 of ~100 +40%'
tui_wait '^Rate .* ETA none .*stalled [0-9]+s'
# it moves again: no stall, an ETA and "last progress"
api PATCH "$B/stuck-run" '{"status":{"progress":{"itemsBackedUp":50}}}'
tui_wait '^Items .* 50 of ~100 +50%'
tui_wait '^Rate +[0-9.]+/s +ETA done in ~[0-9]+m?[0-9]+s \(at [0-9:]+\) +last progress [0-9]s ago'
tui_keys Escape
tui_wait 'B stuck-run +InProgress +.* 50/~100 +[0-9.]+/s +[0-9m]+s '

# the sim goes away: the rows stay, the header says how old the data is, and the run is not
# called stalled however long the outage lasts
tui_sim_kill
tui_wait 'retrying \(attempt [0-9]+, next in [0-9]+s\)' 30
tui_wait 'data stale for [5-9]s' 20
tui_screen | grep -q 'stalled' && tui_fail "a run was called stalled while the data is stale"
tui_wait 'B stuck-run +InProgress +.* 50/~100 '

tui_keys q
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "tui_stall: ok"
