#!/usr/bin/env bash
# tui_liveness.sh: "live" means live. A hung API server (SIGSTOP: connections stay open, nothing
# arrives, no error) used to leave the header at "● live" for ever while runs were declared
# stalled, blamed on Velero. Now the header says "not responding for Ns" within 15 s, no run is
# called stalled while the data is not fresh, and after SIGCONT it is live again and new data shows.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario empty --passive --quiet

api() { # METHOD PATH [JSON]: one request to the sim
    python3 - "$TUI_SIM_URL" "$@" <<'PY' || tui_fail "api $*"
import sys, urllib.request
url, method, path = sys.argv[1], sys.argv[2], sys.argv[3]
body = sys.argv[4].encode() if len(sys.argv) > 4 else None
ctype = "application/merge-patch+json" if method == "PATCH" else "application/json"
req = urllib.request.Request(url + path, data=body, method=method, headers={"Content-Type": ctype})
assert urllib.request.urlopen(req, timeout=10).status in (200, 201)
PY
}
B=/apis/velero.io/v1/namespaces/velero/backups
started=$(date -u -d '-60 seconds' +%Y-%m-%dT%H:%M:%SZ)
api POST "$B" '{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"run","namespace":"velero"},"spec":{},"status":{"phase":"InProgress","startTimestamp":"'"$started"'","progress":{"totalItems":100,"itemsBackedUp":40}}}'

tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_wait 'B run +InProgress +.* 40/~100 '
api PATCH "$B/run" '{"status":{"progress":{"itemsBackedUp":50}}}'
tui_wait 'B run +InProgress +.* 50/~100 +[0-9.]+/s '

# the server hangs right after that change: the last word from it is the change itself
kill -STOP "$TUI_SIM_PID"
t0=$SECONDS
tui_wait '● not responding for [0-9]+s' 16
echo "not responding shown after $((SECONDS - t0)) s"
[ $((SECONDS - t0)) -le 15 ] || tui_fail "took $((SECONDS - t0)) s to notice"
tui_screen | grep -q '● live' && tui_fail "still live"
# well past the 3 s stall threshold: the run is not called stalled, its row is kept
tui_wait 'not responding for 1[4-9]s' 10
tui_screen | grep -q 'stalled' && tui_fail "a run was called stalled while the server does not answer"
# frozen, not counting down: no ETA on data that is not current, and health is not "OK"
tui_wait 'B run +InProgress +.* 50/~100 +[0-9.]+/s +stale '
tui_wait '^health unknown +no current data since [0-9:]+'
# the health screen says so too: what it shows is as of then, not judged as current
tui_keys H
tui_wait '^unknown: no current data since [0-9:]+; shown as of then'
tui_keys Escape
tui_wait 'Backups & Restores *$'

kill -CONT "$TUI_SIM_PID"
tui_wait '● live' 15
api PATCH "$B/run" '{"status":{"progress":{"itemsBackedUp":60}}}'
tui_wait 'B run +InProgress +.* 60/~100 ' 10
tui_wait '^health OK' 10
tui_screen | grep -q 'B run .* stale ' && tui_fail "still stale once live"

tui_keys q
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "tui_liveness: ok"
