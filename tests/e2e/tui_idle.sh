#!/usr/bin/env bash
# tui_idle.sh: while nothing changes, veltop writes nothing but the header clock once a second.
# Finished runs only (a --passive sim: nothing moves); the bytes veltop writes to the terminal are
# counted through tmux pipe-pane over several clock ticks, on the list and on the detail screen.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario empty --passive --quiet
python3 - "$TUI_SIM_URL" <<'PY' || tui_fail "could not create the backups"
import json, sys, urllib.request
for i in range(20):
    obj = {"apiVersion": "velero.io/v1", "kind": "Backup",
           "metadata": {"name": "done-%02d" % i, "namespace": "velero"}, "spec": {},
           "status": {"phase": "Completed", "startTimestamp": "2026-01-%02dT01:00:00Z" % (i + 1),
                      "completionTimestamp": "2026-01-%02dT01:02:00Z" % (i + 1),
                      "progress": {"totalItems": 100 + i, "itemsBackedUp": 100 + i},
                      "resourceProgress": {"pods": {"processed": 100 + i, "total": 100 + i}}}}
    req = urllib.request.Request(sys.argv[1] + "/apis/velero.io/v1/namespaces/velero/backups",
                                 data=json.dumps(obj).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    assert urllib.request.urlopen(req).status == 201
PY

raw="$TUI_DIR/out.raw"
tui_start 120 40 --kubeconfig "$TUI_DIR/kubeconfig"
tmux -L "$TUI_SOCK" pipe-pane -o -t veltop "cat >>'$raw'"
tui_wait '● live'
tui_wait 'B done-19 +Completed'

# bytes written over `ticks` clock ticks (waits for each tick: the clock is the first line)
bytes_over_ticks() { # ticks
    local n=$1 line start end
    line=$(tui_line 'veltop')
    tui_wait_change 'veltop' "$line" 5
    start=$(stat -c %s "$raw" 2>/dev/null || echo 0)
    for _ in $(seq 1 "$n"); do
        line=$(tui_line 'veltop')
        tui_wait_change 'veltop' "$line" 5
    done
    end=$(stat -c %s "$raw")
    # what was written, escape sequences and BS/CR (cursor moves, attributes) taken out, is clock digits only
    tail -c $((end - start)) "$raw" | python3 -c '
import re, sys
text = re.sub(rb"\x1b(\[[0-9;?]*[A-Za-z]|\([A-Z0-9])|[\b\r]", b"", sys.stdin.buffer.read())
assert re.fullmatch(rb"[0-9:]*", text), text
' || tui_fail "idle: more than the clock was written"
    echo $((end - start))
}

# the list: a clock tick rewrites the changed digits of "HH:MM:SS" (with their attributes and a
# cursor move: ~50 bytes)
b=$(bytes_over_ticks 4) || exit 1
[ "$b" -le $((4 * 80)) ] || tui_fail "list idle: $b bytes over 4 ticks"
# the detail of a finished run: the same
tui_keys Enter
tui_wait '^Backup done-19 +Completed'
tui_wait '^  pods +.* 119 of 119 +done'
b=$(bytes_over_ticks 4) || exit 1
[ "$b" -le $((4 * 80)) ] || tui_fail "detail idle: $b bytes over 4 ticks"
tui_keys q
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "tui_idle: ok"
