#!/usr/bin/env bash
# tui_restart.sh: an API server that comes back with older state (a restarted veltop-sim here; an
# etcd restore on a real cluster). veltop used to resume its watches from resourceVersions the
# new server had not reached: "live" with frozen rows, and backups created since never appeared.
# Now, after the reconnect, it sees the server went back in time, lists again, and shows the
# server's state: the old runs gone, a backup created after the restart there.
. "$(dirname "$0")/tui_lib.bash" || exit 1

tui_sim_start --scenario "$FIXTURES_DIR/scenarios/basic.yaml" --quiet
tui_start 120 30 --kubeconfig "$TUI_DIR/kubeconfig"
tui_wait '● live'
tui_wait 'B backup-done +Completed'

# the same address, fresh state (resourceVersions start again from the bottom)
tui_sim_kill
tui_wait 'retrying|not responding' 20
tui_sim_start --scenario empty --passive --quiet
python3 - "$TUI_SIM_URL" <<'PY' || tui_fail "could not create the backup"
import json, sys, urllib.request
obj = {"apiVersion": "velero.io/v1", "kind": "Backup",
       "metadata": {"name": "after-restart", "namespace": "velero"}, "spec": {},
       "status": {"phase": "Completed", "startTimestamp": "2026-01-01T00:00:00Z",
                  "completionTimestamp": "2026-01-01T00:01:00Z",
                  "progress": {"totalItems": 3, "itemsBackedUp": 3}}}
req = urllib.request.Request(sys.argv[1] + "/apis/velero.io/v1/namespaces/velero/backups",
                             data=json.dumps(obj).encode(), method="POST",
                             headers={"Content-Type": "application/json"})
assert urllib.request.urlopen(req).status == 201
PY
tui_wait 'B after-restart +Completed' 40
tui_wait '● live' 20
tui_wait_gone 'backup-done' 5
# and what comes next shows too (the watch is at the new server's resourceVersion)
python3 - "$TUI_SIM_URL" <<'PY' || tui_fail "could not delete the backup"
import sys, urllib.request
req = urllib.request.Request(sys.argv[1] + "/apis/velero.io/v1/namespaces/velero/backups/after-restart", method="DELETE")
assert urllib.request.urlopen(req).status == 200
PY
tui_wait_gone 'after-restart' 10

"$VELTOP" --kubeconfig "$TUI_DIR/kubeconfig" --once --json >"$TUI_DIR/once.json" || tui_fail "--once"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["runs"] == [], d["runs"]' "$TUI_DIR/once.json" || tui_fail "--once: $(cat "$TUI_DIR/once.json")"
tui_keys q
status=$(tui_wait_exit)
[ "$status" = 0 ] || tui_fail "veltop exited with $status"
echo "tui_restart: ok"
