#!/usr/bin/env bash
# tui_logcap.sh: a stored log that is a gzip bomb (a few lines, then zeros without end) is cut at
# KC_CAP_LOG_BYTES (256 MiB once decompressed): the pager shows the lines, the zeros as one line
# cut at 64 KiB, says the log was truncated, and `q` answers at once; veltop's memory stays
# bounded. The DownloadRequest is answered by tests/e2e/dlserve.py in a namespace the sim's own
# controller does not watch.
. "$(dirname "$0")/tui_lib.bash" || exit 1

NS=other
tui_sim_start --scenario empty --quiet
python3 - "$TUI_SIM_URL" "$NS" <<'PY' || tui_fail "could not create the backup"
import json, sys, urllib.request
body = {"apiVersion": "velero.io/v1", "kind": "Backup",
        "metadata": {"name": "bomb", "namespace": sys.argv[2]}, "spec": {},
        "status": {"phase": "Completed", "startTimestamp": "2026-01-01T00:00:00Z",
                   "completionTimestamp": "2026-01-01T00:01:00Z",
                   "progress": {"totalItems": 3, "itemsBackedUp": 3},
                   "resourceProgress": {"pods": {"processed": 3, "total": 3}}}}
req = urllib.request.Request(sys.argv[1] + "/apis/velero.io/v1/namespaces/%s/backups" % sys.argv[2],
                             data=json.dumps(body).encode(), method="POST",
                             headers={"Content-Type": "application/json"})
assert urllib.request.urlopen(req).status == 201
PY
python3 "$(dirname "$0")/dlserve.py" "$TUI_SIM_URL" "$NS" bomb "$TUI_DIR/dl.port" 2>"$TUI_DIR/dl.err" &
DL_PID=$!
trap 'kill $DL_PID 2>/dev/null; tui_cleanup' EXIT
for _ in $(seq 1 100); do [ -f "$TUI_DIR/dl.port" ] && break; sleep 0.05; done
[ -f "$TUI_DIR/dl.port" ] || tui_fail "dlserve.py did not start: $(cat "$TUI_DIR/dl.err")"

tui_start 120 30 --kubeconfig "$TUI_DIR/kubeconfig" -n "$NS"
tui_wait '● live'
tui_wait 'B bomb +Completed'
tui_keys l
tui_wait 'msg="line 2"' 30
tui_wait 'log truncated at 256 MiB, veltop.s limit for a stored log' 120
tui_wait 'rows 1-4 of 4 \(1 lines cut at 64 KiB\)'
pid=$(pgrep -f -n -- "--kubeconfig $TUI_DIR/kubeconfig -n $NS" | head -n 1)
if [ -n "$pid" ]; then
    rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
    # 256 MiB of text held plus ASan's overhead; the uncapped run reached 4.2 GB
    [ "${rss:-0}" -lt 1200000 ] || tui_fail "peak RSS ${rss} kB"
    echo "peak RSS ${rss} kB"
fi
start=$(date +%s%N)
tui_keys q q
status=$(tui_wait_exit)
end=$(date +%s%N)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
[ $(((end - start) / 1000000)) -lt 3000 ] || tui_fail "q took $(((end - start) / 1000000)) ms"
echo "q answered in $(((end - start) / 1000000)) ms"

# again, quitting while the bomb is still being read: q answers at once
tmux -L "$TUI_SOCK" kill-server 2>/dev/null
TUI_SOCK="$TUI_SOCK-2"
tui_start 120 30 --kubeconfig "$TUI_DIR/kubeconfig" -n "$NS"
tui_wait 'B bomb +Completed'
tui_keys l
tui_wait 'msg="line 2"' 30
start=$(date +%s%N)
tui_keys q q
status=$(tui_wait_exit)
end=$(date +%s%N)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
[ $(((end - start) / 1000000)) -lt 3000 ] || tui_fail "q while loading took $(((end - start) / 1000000)) ms"
echo "q while loading answered in $(((end - start) / 1000000)) ms"
echo "tui_logcap: ok"
