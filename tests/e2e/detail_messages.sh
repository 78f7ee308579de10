#!/usr/bin/env bash
# detail_messages.sh: what the detail screen says instead of per-resource rows is true: a resource
# list that is not JSON says what was wrong with it (not "no per-resource progress from the
# server"), as --once --details does in JSON and on stderr; a run named with 300 bytes (a
# non-conformant server) opens as itself, not as "gone (deleted from the cluster)".
source "$(dirname "$0")/tui_lib.bash"

LONG=$(printf 'long%.0s' $(seq 1 75)) # 300 bytes
scen="$TUI_DIR/msg.yaml"
printf '%s\n' 'namespaces: [shop]' 'runs:' \
    '  - {kind: backup, name: broken, start: -1h, rate: 20, list_text: "<html>bad gateway</html>", resources: [{name: pods, items: 5}]}' \
    "  - {kind: backup, name: $LONG, start: -2h, rate: 20, resources: [{name: pods, items: 3}]}" >"$scen"
tui_sim_start --scenario "$scen" --quiet --no-resource-progress
KC="$TUI_DIR/kubeconfig"

"$VELTOP" --kubeconfig "$KC" --once --details --json >"$TUI_DIR/once.json" 2>"$TUI_DIR/once.err" ||
    tui_fail "--once --details failed: $(cat "$TUI_DIR/once.err")"
[ "$(cat "$TUI_DIR/once.err")" = "veltop: backup broken: per-resource rows unknown: the BackupResourceList is not usable: resource list is not a JSON object" ] ||
    tui_fail "stderr: $(cat "$TUI_DIR/once.err")"
python3 - "$TUI_DIR/once.json" "$LONG" <<'PY' || tui_fail "--once --json: a broken list, a long name"
import json, sys
runs = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
b = runs["broken"]
assert b["resources"] is None, b
assert b["resourcesNote"] == "the BackupResourceList is not usable: resource list is not a JSON object", b
assert {x["resource"]: x["total"] for x in runs[sys.argv[2]]["resources"]} == {"pods": 3}
PY

tui_start 200 40 --kubeconfig "$KC"
tui_wait 'broken' 15
tui_keys / ; tui_keys "broken" Enter
tui_wait '^B broken ' 5
tui_keys Enter
tui_wait 'Resources +the BackupResourceList is not usable: resource list is not a JSON object' 15
tui_screen | grep -q 'no per-resource progress from the server' && tui_fail "a broken list told as no progress"
tui_server_stop

# the long name: its detail is its own (it was looked up cut at 255 bytes: "gone")
tui_start 200 40 --kubeconfig "$KC"
tui_wait '^B longlong' 15
tui_keys / ; tui_keys "longlonglong" Enter
tui_wait 'filter: /longlonglong +1 of 2 runs' 5
tui_keys Enter
tui_wait '^Backup longlonglong' 10
tui_screen | grep -Eq '^ +backup longlong' && tui_fail "a 300-byte name shown as gone"
tui_wait 'Resources +[0-9]+ of 1 types done' 15
echo "ok"
